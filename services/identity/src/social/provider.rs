//! A configured provider at work: its endpoints (an OpenID provider's read from its discovery
//! document on first use, and again after a failure), the authorization URL, the code
//! exchange (the `oauth2` crate, through the workspace's reqwest) and the user's profile.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};
use gatehouse_jwks::{Expectations, KeySet, VerifyError};
use gatehouse_kit::config::ExposeSecret;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, RefreshToken, ResponseType, Scope, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::OnceCell;
use url::Url;

use super::builtin::{self, BuiltIn, ClientAuth};
use super::config::{BuiltInEndpoints, Endpoints, ProviderConfig};
pub use super::profile::Profile;
use super::profile::profile_of;
use super::user_info;

/// How long a provider may take to answer one call.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The provider could not be reached, did not answer in time, or answered an error status.
    #[error("{0}")]
    Http(#[from] reqwest::Error),
    #[error("{0}")]
    Response(#[from] http::Error),
    #[error("{what}: {detail}")]
    Unexpected { what: &'static str, detail: String },
}

fn unexpected(what: &'static str, detail: impl ToString) -> ProviderError {
    ProviderError::Unexpected {
        what,
        detail: detail.to_string(),
    }
}

/// Where a provider is reached, resolved.
#[derive(Clone, Debug)]
struct Resolved {
    authorization: Url,
    token: Url,
    user_info: Url,
    /// An OpenID provider's issuer: the callback's `iss` and its id tokens' must be this.
    issuer: Option<String>,
    /// The signing keys of its id tokens (an OpenID provider's `jwks_uri`; a built-in's),
    /// cached, and the issuers those tokens may name.
    keys: Option<KeySet>,
    id_token_issuers: Vec<String>,
}

/// Why an id token was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum IdTokenError {
    /// The provider has no key set to verify with (plain OAuth 2, or no `jwks_uri`).
    #[error("this provider's id tokens cannot be verified here")]
    NotSupported,
    /// The token itself is refused: signature, issuer, audience, expiry or nonce.
    #[error("{0}")]
    Invalid(String),
    /// The provider (its discovery document or keys) could not be reached.
    #[error("{0}")]
    Unavailable(String),
}

/// An OpenID Connect discovery document, the fields used.
#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: Url,
    token_endpoint: Url,
    userinfo_endpoint: Option<Url>,
    jwks_uri: Option<Url>,
}

/// What a token endpoint answers besides RFC 6749's fields.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
struct MoreTokenFields {
    /// An OpenID provider's id token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id_token: Option<String>,
    /// Some providers' refresh-token lifetime (seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token_expires_in: Option<u64>,
}

impl oauth2::ExtraTokenFields for MoreTokenFields {}

type TokenAnswer = oauth2::StandardTokenResponse<MoreTokenFields, oauth2::basic::BasicTokenType>;

/// A provider's tokens for one account, as it answered them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    pub id_token: Option<String>,
    pub access_token_expires_at: Option<DateTime<Utc>>,
    pub refresh_token_expires_at: Option<DateTime<Utc>>,
    /// What the provider granted (what was asked for, when it does not say: RFC 6749 5.1).
    pub scopes: Vec<String>,
}

impl Tokens {
    fn from_answer(answer: &TokenAnswer, asked: &[String]) -> Self {
        let now = gatehouse_kit::ids::now();
        let after = |seconds: u64| {
            chrono::TimeDelta::try_seconds(i64::try_from(seconds).unwrap_or(i64::MAX))
                .and_then(|delta| now.checked_add_signed(delta))
        };
        Self {
            access_token: answer.access_token().secret().clone(),
            refresh_token: answer.refresh_token().map(|t| t.secret().clone()),
            id_token: answer.extra_fields().id_token.clone(),
            access_token_expires_at: answer.expires_in().and_then(|d| after(d.as_secs())),
            refresh_token_expires_at: answer
                .extra_fields()
                .refresh_token_expires_in
                .and_then(after),
            scopes: match answer.scopes() {
                Some(granted) => granted.iter().map(|s| s.to_string()).collect(),
                None => asked.to_vec(),
            },
        }
    }
}

/// A client with its authorization and token endpoints set.
type OAuthClient = oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    TokenAnswer,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

pub struct Provider {
    pub config: ProviderConfig,
    resolved: OnceCell<Resolved>,
    http: reqwest::Client,
}

/// The authorization URL of one sign-in, and the PKCE verifier its callback needs.
pub struct Authorization {
    pub url: Url,
    pub code_verifier: Option<String>,
}

impl Provider {
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        // The tree's one TLS provider (ring); a no-op where a main installed it already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(CALL_TIMEOUT)
            .connect_timeout(CALL_TIMEOUT.min(Duration::from_secs(5)))
            .user_agent(concat!("Gatehouse/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            config,
            resolved: OnceCell::new(),
            http,
        })
    }

    async fn resolved(&self) -> Result<&Resolved, ProviderError> {
        self.resolved
            .get_or_try_init(|| async {
                match &self.config.endpoints {
                    Endpoints::Manual {
                        authorization,
                        token,
                        user_info,
                    } => Ok(Resolved {
                        authorization: authorization.clone(),
                        token: token.clone(),
                        user_info: user_info.clone(),
                        issuer: None,
                        keys: None,
                        id_token_issuers: Vec::new(),
                    }),
                    Endpoints::BuiltIn(built_in) => {
                        let (keys, id_token_issuers) = match &built_in.id_token_keys {
                            Some((jwks, issuers)) => (Some(self.key_set(jwks)), issuers.clone()),
                            None => (None, Vec::new()),
                        };
                        Ok(Resolved {
                            authorization: built_in.authorization.clone(),
                            token: built_in.token.clone(),
                            user_info: built_in.user_info.clone(),
                            issuer: None,
                            keys,
                            id_token_issuers,
                        })
                    }
                    Endpoints::Discovery(url) => {
                        let discovery: Discovery = self
                            .http
                            .get(url.clone())
                            .send()
                            .await?
                            .error_for_status()?
                            .json()
                            .await?;
                        let user_info = discovery
                            .userinfo_endpoint
                            .ok_or_else(|| unexpected("discovery", "no userinfo_endpoint"))?;
                        // What the document names is where the secret and the browser go.
                        for endpoint in [
                            Some(&discovery.authorization_endpoint),
                            Some(&discovery.token_endpoint),
                            Some(&user_info),
                            discovery.jwks_uri.as_ref(),
                        ]
                        .into_iter()
                        .flatten()
                        {
                            if !super::config::secure_enough(endpoint) {
                                return Err(unexpected(
                                    "discovery",
                                    format!("insecure endpoint {endpoint}"),
                                ));
                            }
                        }
                        Ok(Resolved {
                            keys: discovery.jwks_uri.map(|url| self.key_set(&url)),
                            id_token_issuers: vec![discovery.issuer.clone()],
                            authorization: discovery.authorization_endpoint,
                            token: discovery.token_endpoint,
                            user_info,
                            issuer: Some(discovery.issuer),
                        })
                    }
                }
            })
            .await
    }

    /// The issuer the callback's `iss` must name, for an OpenID provider.
    pub async fn issuer(&self) -> Result<Option<String>, ProviderError> {
        Ok(self.resolved().await?.issuer.clone())
    }

    pub fn is_openid(&self) -> bool {
        matches!(self.config.endpoints, Endpoints::Discovery(_))
    }

    /// A built-in provider's spec and URLs.
    pub fn built_in(&self) -> Option<&BuiltInEndpoints> {
        match &self.config.endpoints {
            Endpoints::BuiltIn(built_in) => Some(built_in),
            _ => None,
        }
    }

    /// What its sign-in button says.
    pub fn display_name(&self) -> &str {
        self.built_in()
            .map_or(self.config.id.as_str(), |built_in| built_in.spec.name)
    }

    fn key_set(&self, jwks: &Url) -> KeySet {
        KeySet::new(
            jwks.clone(),
            self.http.clone(),
            gatehouse_jwks::Settings::default(),
        )
    }

    /// The claims of an id token this provider issued for us: signed by one of its keys
    /// (fetched with a timeout, cached, refetched on an unknown `kid`), its issuer, our client
    /// id as audience, not expired, and carrying `nonce` when one is expected (Apple's may
    /// carry its SHA-256 instead, as Apple's SDKs send it).
    pub async fn verify_id_token(
        &self,
        token: &str,
        nonce: Option<&str>,
    ) -> Result<Value, IdTokenError> {
        if !self.is_openid() && self.built_in().is_none_or(|b| b.id_token_keys.is_none()) {
            return Err(IdTokenError::NotSupported);
        }
        let resolved = self
            .resolved()
            .await
            .map_err(|e| IdTokenError::Unavailable(e.to_string()))?;
        let Some(keys) = &resolved.keys else {
            return Err(IdTokenError::NotSupported);
        };
        let mut expect = Expectations::new(String::new(), self.config.client_id.clone());
        expect.issuers = resolved.id_token_issuers.clone();
        // A multi-tenant Microsoft app's tokens name their own tenant's issuer: only then is
        // the token read for its `tid` before it is verified.
        if expect.issuers.iter().any(|issuer| issuer.contains("{tid}")) {
            let tenant = claims_of(token)
                .and_then(|claims| claims.get("tid").and_then(Value::as_str).map(String::from))
                .unwrap_or_default();
            for issuer in &mut expect.issuers {
                *issuer = issuer.replace("{tid}", &tenant);
            }
        }
        let claims: Value = keys.verify(token, &expect).await.map_err(|e| match e {
            VerifyError::KeySetUnavailable(why) => IdTokenError::Unavailable(why),
            refused => IdTokenError::Invalid(refused.to_string()),
        })?;
        if let Some(expected) = nonce {
            let carried = claims.get("nonce").and_then(Value::as_str);
            let apple = self
                .built_in()
                .is_some_and(|b| b.spec.kind == BuiltIn::Apple);
            let hashed = gatehouse_kit::ids::sha256_hex(expected);
            if carried != Some(expected) && !(apple && carried == Some(hashed.as_str())) {
                return Err(IdTokenError::Invalid("the nonce does not match".into()));
            }
        }
        Ok(claims)
    }

    /// The user an id token's claims describe (a built-in provider's by its own mapping).
    pub fn profile_from_claims(&self, claims: &Value) -> Option<Profile> {
        match self.built_in() {
            Some(built_in) => builtin::map(
                built_in.spec.kind,
                &builtin::Answers {
                    main: claims.clone(),
                    more: None,
                },
            ),
            None => profile_of(claims),
        }
    }

    fn client(
        &self,
        resolved: &Resolved,
        redirect_uri: &str,
    ) -> Result<OAuthClient, ProviderError> {
        let redirect = self.config.redirect_uri.as_deref().unwrap_or(redirect_uri);
        Ok(
            // TikTok's client is its client key (sent as `client_key`, see `Http`).
            oauth2::Client::new(ClientId::new(self.client_key().to_string()))
                .set_client_secret(ClientSecret::new(
                    self.config.client_secret.expose_secret().to_string(),
                ))
                .set_auth_uri(AuthUrl::from_url(resolved.authorization.clone()))
                .set_token_uri(TokenUrl::from_url(resolved.token.clone()))
                .set_redirect_uri(
                    RedirectUrl::new(redirect.to_string())
                        .map_err(|e| unexpected("redirect URI", e))?,
                )
                // better-auth's default: client_secret_post; X and Reddit take Basic.
                .set_auth_type(match self.built_in().map(|b| b.spec.auth) {
                    Some(ClientAuth::Basic) => AuthType::BasicAuth,
                    _ => AuthType::RequestBody,
                }),
        )
    }

    /// The URL that sends the browser to the provider for one sign-in.
    pub async fn authorize(
        &self,
        state: &str,
        nonce: &str,
        scopes: &[String],
        login_hint: Option<&str>,
        extra: &[(String, String)],
        redirect_uri: &str,
    ) -> Result<Authorization, ProviderError> {
        let resolved = self.resolved().await?;
        let spec = self.built_in().map(|b| b.spec);
        if spec.is_some_and(|spec| spec.kind == BuiltIn::Tiktok) {
            return Ok(self.tiktok_authorization(resolved, state, scopes, extra, redirect_uri));
        }
        let client = self.client(resolved, redirect_uri)?;
        let state = state.to_string();
        let mut request = client
            .authorize_url(move || CsrfToken::new(state))
            .add_scopes(scopes.iter().cloned().map(Scope::new));
        let mut code_verifier = None;
        if self.config.pkce {
            // 96 random bytes: a 128-character verifier, as better-auth's.
            let (challenge, verifier) = PkceCodeChallenge::new_random_sha256_len(96);
            request = request.set_pkce_challenge(challenge);
            code_verifier = Some(verifier.secret().to_string());
        }
        if self.is_openid() {
            request = request.add_extra_param("nonce", nonce);
        }
        if let Some(hint) = login_hint {
            request = request.add_extra_param("login_hint", hint);
        }
        let prompt = self
            .config
            .prompt
            .as_deref()
            .or(spec.and_then(|spec| spec.default_prompt));
        if let Some(prompt) = prompt {
            request = request.add_extra_param("prompt", prompt);
        }
        for (key, value) in spec.map_or(&[][..], |spec| spec.authorize_params) {
            request = match *key {
                "response_type" => request.set_response_type(&ResponseType::new(value.to_string())),
                _ => request.add_extra_param(*key, *value),
            };
        }
        for (key, value) in extra {
            request = request.add_extra_param(key, value);
        }
        let (url, _) = request.url();
        Ok(Authorization { url, code_verifier })
    }

    /// TikTok's own authorization URL: `client_key` instead of `client_id`, scopes joined by
    /// commas, no PKCE challenge (better-auth's).
    fn tiktok_authorization(
        &self,
        resolved: &Resolved,
        state: &str,
        scopes: &[String],
        extra: &[(String, String)],
        redirect_uri: &str,
    ) -> Authorization {
        let mut url = resolved.authorization.clone();
        let redirect = self.config.redirect_uri.as_deref().unwrap_or(redirect_uri);
        url.query_pairs_mut()
            .append_pair("scope", &scopes.join(","))
            .append_pair("response_type", "code")
            .append_pair("client_key", self.client_key())
            .append_pair("redirect_uri", redirect)
            .append_pair("state", state)
            .extend_pairs(extra.iter().filter(|(key, _)| key != "client_key"));
        Authorization {
            url,
            code_verifier: None,
        }
    }

    /// The id the client goes by: TikTok's client key when configured, else the client id.
    fn client_key(&self) -> &str {
        self.built_in()
            .filter(|b| b.spec.kind == BuiltIn::Tiktok)
            .and_then(|b| b.client_key.as_deref())
            .unwrap_or(&self.config.client_id)
    }

    /// Exchanges the callback's code for the account's tokens (`asked`: the scopes the
    /// sign-in asked for).
    pub async fn exchange(
        &self,
        code: &str,
        code_verifier: Option<&str>,
        redirect_uri: &str,
        asked: &[String],
        device_id: Option<&str>,
    ) -> Result<Tokens, ProviderError> {
        let resolved = self.resolved().await?;
        let client = self.client(resolved, redirect_uri)?;
        let mut request = client.exchange_code(AuthorizationCode::new(code.to_string()));
        if let Some(verifier) = code_verifier {
            request = request.set_pkce_verifier(PkceCodeVerifier::new(verifier.to_string()));
        }
        let kind = self.built_in().map(|b| b.spec.kind);
        if let (Some(BuiltIn::Vk), Some(device_id)) = (kind, device_id) {
            request = request.add_extra_param("device_id", device_id.to_string());
        }
        let answer = request
            .request_async(&self.token_client())
            .await
            .map_err(|e| match e {
                // The provider was not reached (or its answer not read): its own error.
                oauth2::RequestTokenError::Request(unreached) => unreached,
                refused => unexpected("token exchange", refused),
            })?;
        Ok(Tokens::from_answer(&answer, asked))
    }

    /// New tokens for a refresh token. A provider that sends no new refresh token keeps the
    /// old one working (RFC 6749 6), so it stays; so do the granted scopes when not named.
    pub async fn refresh(
        &self,
        refresh_token: &str,
        scopes: &[String],
    ) -> Result<Tokens, ProviderError> {
        let resolved = self.resolved().await?;
        // The redirect URI is not sent with a refresh; any valid one builds the client.
        let client = self.client(resolved, "http://localhost/")?;
        let answer = client
            .exchange_refresh_token(&RefreshToken::new(refresh_token.to_string()))
            .request_async(&self.token_client())
            .await
            .map_err(|e| match e {
                oauth2::RequestTokenError::Request(unreached) => unreached,
                refused => unexpected("token refresh", refused),
            })?;
        let mut tokens = Tokens::from_answer(&answer, scopes);
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token.to_string());
        }
        Ok(tokens)
    }

    /// Who the user is, as the provider says (its user-info answer, or a built-in's own way):
    /// the profile, and the answer it was read from. `apple_user`: Apple's first-sign-in
    /// `user` form field.
    pub async fn user(
        &self,
        tokens: &Tokens,
        apple_user: Option<&Value>,
    ) -> Result<(Profile, Value), ProviderError> {
        let resolved = self.resolved().await?;
        let Some(built_in) = self.built_in() else {
            let claims =
                user_info::get(&self.http, &resolved.user_info, &tokens.access_token).await?;
            let profile =
                profile_of(&claims).ok_or_else(|| unexpected("user info", "no `sub` or `id`"))?;
            return Ok((profile, claims));
        };
        let answers = user_info::read(self, built_in, tokens, apple_user).await?;
        let profile = builtin::map(built_in.spec.kind, &answers)
            .ok_or_else(|| unexpected("user info", "the answer names no user"))?;
        Ok((profile, answers.main))
    }

    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    fn token_client(&self) -> Http {
        Http {
            client: self.http.clone(),
            client_id_as_client_key: self
                .built_in()
                .is_some_and(|b| b.spec.auth == ClientAuth::ClientKey),
        }
    }
}

/// oauth2's requests to the token endpoint, through the workspace's client, with two
/// providers' ways smoothed over: TikTok names the client `client_key` (not `client_id`), and
/// Twitch answers `scope` as a JSON array (oauth2 reads only RFC 6749's space-separated text).
struct Http {
    client: reqwest::Client,
    client_id_as_client_key: bool,
}

impl Http {
    /// The form body with `client_id` renamed `client_key`.
    fn as_client_key(body: &[u8]) -> Vec<u8> {
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(url::form_urlencoded::parse(body).map(|(key, value)| {
                let key = if key == "client_id" {
                    "client_key".into()
                } else {
                    key
                };
                (key, value)
            }))
            .finish()
            .into_bytes()
    }

    /// A JSON answer's `scope` array joined with spaces; anything else as it came.
    fn scope_as_text(body: Vec<u8>) -> Vec<u8> {
        let Ok(mut answer) = serde_json::from_slice::<serde_json::Map<String, Value>>(&body) else {
            return body;
        };
        let Some(Value::Array(scopes)) = answer.get("scope") else {
            return body;
        };
        let joined: Vec<&str> = scopes.iter().filter_map(Value::as_str).collect();
        let joined = joined.join(" ");
        answer.insert("scope".into(), Value::String(joined));
        serde_json::to_vec(&answer).unwrap_or(body)
    }
}

impl<'c> oauth2::AsyncHttpClient<'c> for Http {
    type Error = ProviderError;
    type Future =
        Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, ProviderError>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = match self.client_id_as_client_key {
                true => Self::as_client_key(&body),
                false => body,
            };
            let response = self
                .client
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body)
                .send()
                .await?;
            let mut builder = http::Response::builder().status(response.status());
            if let Some(headers) = builder.headers_mut() {
                headers.extend(response.headers().clone());
            }
            let body = Self::scope_as_text(response.bytes().await?.to_vec());
            Ok(builder.body(body)?)
        })
    }
}

/// A JWT's claims, read without checking its signature: only for a token that came straight
/// from the provider's token endpoint over TLS (OpenID Connect Core 3.1.3.7), never one an
/// app sent.
pub fn claims_of(jwt: &str) -> Option<Value> {
    use base64::Engine as _;
    let payload = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}
