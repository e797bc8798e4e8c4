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
    PkceCodeVerifier, RedirectUrl, RefreshToken, Scope, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::OnceCell;
use url::Url;

use super::config::{Endpoints, ProviderConfig};

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
    /// An OpenID provider's signing keys (its `jwks_uri`), cached: what verifies id tokens.
    keys: Option<KeySet>,
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

/// What a provider says about the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The provider's id for the user (`sub`, or `id`).
    pub id: String,
    /// Lower-cased.
    pub email: Option<String>,
    pub email_verified: bool,
    pub name: String,
    pub image: Option<String>,
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
                    }),
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
                        let keys = discovery.jwks_uri.map(|url| {
                            KeySet::new(url, self.http.clone(), gatehouse_jwks::Settings::default())
                        });
                        Ok(Resolved {
                            authorization: discovery.authorization_endpoint,
                            token: discovery.token_endpoint,
                            user_info,
                            issuer: Some(discovery.issuer),
                            keys,
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

    /// The claims of an id token this provider issued for us: signed by one of its keys
    /// (fetched with a timeout, cached, refetched on an unknown `kid`), its issuer, our client
    /// id as audience, not expired, and carrying `nonce` when one is expected.
    pub async fn verify_id_token(
        &self,
        token: &str,
        nonce: Option<&str>,
    ) -> Result<Value, IdTokenError> {
        if !self.is_openid() {
            return Err(IdTokenError::NotSupported);
        }
        let resolved = self
            .resolved()
            .await
            .map_err(|e| IdTokenError::Unavailable(e.to_string()))?;
        let (Some(keys), Some(issuer)) = (&resolved.keys, &resolved.issuer) else {
            return Err(IdTokenError::NotSupported);
        };
        let expect = Expectations::new(issuer.clone(), self.config.client_id.clone());
        let claims: Value = keys.verify(token, &expect).await.map_err(|e| match e {
            VerifyError::KeySetUnavailable(why) => IdTokenError::Unavailable(why),
            refused => IdTokenError::Invalid(refused.to_string()),
        })?;
        if let Some(expected) = nonce
            && claims.get("nonce").and_then(Value::as_str) != Some(expected)
        {
            return Err(IdTokenError::Invalid("the nonce does not match".into()));
        }
        Ok(claims)
    }

    /// The user as an id token's claims describe them.
    pub fn profile_from_claims(claims: &Value) -> Option<Profile> {
        profile_of(claims)
    }

    fn client(
        &self,
        resolved: &Resolved,
        redirect_uri: &str,
    ) -> Result<OAuthClient, ProviderError> {
        let redirect = self.config.redirect_uri.as_deref().unwrap_or(redirect_uri);
        Ok(
            oauth2::Client::new(ClientId::new(self.config.client_id.clone()))
                .set_client_secret(ClientSecret::new(
                    self.config.client_secret.expose_secret().to_string(),
                ))
                .set_auth_uri(AuthUrl::from_url(resolved.authorization.clone()))
                .set_token_uri(TokenUrl::from_url(resolved.token.clone()))
                .set_redirect_uri(
                    RedirectUrl::new(redirect.to_string())
                        .map_err(|e| unexpected("redirect URI", e))?,
                )
                // better-auth's default: client_secret_post.
                .set_auth_type(AuthType::RequestBody),
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
        if let Some(prompt) = &self.config.prompt {
            request = request.add_extra_param("prompt", prompt);
        }
        for (key, value) in extra {
            request = request.add_extra_param(key, value);
        }
        let (url, _) = request.url();
        Ok(Authorization { url, code_verifier })
    }

    /// Exchanges the callback's code for the account's tokens (`asked`: the scopes the
    /// sign-in asked for).
    pub async fn exchange(
        &self,
        code: &str,
        code_verifier: Option<&str>,
        redirect_uri: &str,
        asked: &[String],
    ) -> Result<Tokens, ProviderError> {
        let resolved = self.resolved().await?;
        let client = self.client(resolved, redirect_uri)?;
        let mut request = client.exchange_code(AuthorizationCode::new(code.to_string()));
        if let Some(verifier) = code_verifier {
            request = request.set_pkce_verifier(PkceCodeVerifier::new(verifier.to_string()));
        }
        let answer = request
            .request_async(&Http(self.http.clone()))
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
            .request_async(&Http(self.http.clone()))
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

    /// The user as the provider's user-info endpoint describes them.
    pub async fn profile(&self, access_token: &str) -> Result<Profile, ProviderError> {
        let claims = self.raw_profile(access_token).await?;
        profile_of(&claims).ok_or_else(|| unexpected("user info", "no `sub` or `id`"))
    }

    /// The user-info endpoint's answer as it came, and the profile read from it.
    pub async fn profile_with_data(
        &self,
        access_token: &str,
    ) -> Result<(Profile, Value), ProviderError> {
        let claims = self.raw_profile(access_token).await?;
        let profile =
            profile_of(&claims).ok_or_else(|| unexpected("user info", "no `sub` or `id`"))?;
        Ok((profile, claims))
    }

    async fn raw_profile(&self, access_token: &str) -> Result<Value, ProviderError> {
        let resolved = self.resolved().await?;
        let claims: Value = self
            .http
            .get(resolved.user_info.clone())
            .bearer_auth(access_token)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        Ok(claims)
    }
}

/// oauth2's requests, through the workspace's client.
struct Http(reqwest::Client);

impl<'c> oauth2::AsyncHttpClient<'c> for Http {
    type Error = ProviderError;
    type Future =
        Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, ProviderError>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let response = self
                .0
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body)
                .send()
                .await?;
            let mut builder = http::Response::builder().status(response.status());
            if let Some(headers) = builder.headers_mut() {
                headers.extend(response.headers().clone());
            }
            Ok(builder.body(response.bytes().await?.to_vec())?)
        })
    }
}

/// OpenID's standard claims (`sub`, `email`, `email_verified`, `name`, `picture`), with
/// plain OAuth 2's `id` for `sub`.
fn profile_of(claims: &Value) -> Option<Profile> {
    let text = |key: &str| match claims.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let id = text("sub").or_else(|| text("id"))?;
    let email_verified = match claims.get("email_verified") {
        Some(Value::Bool(verified)) => *verified,
        Some(Value::String(verified)) => verified == "true",
        _ => false,
    };
    Some(Profile {
        id,
        // An address the sign-up rules would refuse is no address at all.
        email: text("email")
            .map(|e| e.trim().to_lowercase())
            .filter(|e| gatehouse_kit::validate::is_valid_email(e)),
        email_verified,
        name: clean_name(&text("name").unwrap_or_default()),
        image: text("picture").filter(|url| url.len() <= MAX_URL),
    })
}

/// The longest name and picture URL kept, as sign-up's limits.
const MAX_NAME: usize = 255;
const MAX_URL: usize = 2048;

/// The provider's name for the user as sign-up would accept one: control characters dropped,
/// at most 255 characters.
fn clean_name(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn profiles_read_openid_claims_and_oauth_ids() {
        let openid = profile_of(&json!({"sub": "s1", "email": "Bob@Example.com",
            "email_verified": true, "name": "Bob", "picture": "https://x/p.png"}))
        .unwrap();
        assert_eq!(openid.id, "s1");
        assert_eq!(openid.email.as_deref(), Some("bob@example.com"));
        assert!(openid.email_verified);
        let oauth = profile_of(&json!({"id": 42, "email_verified": "false"})).unwrap();
        assert_eq!(
            (oauth.id.as_str(), oauth.email, oauth.email_verified),
            ("42", None, false)
        );
        assert!(profile_of(&json!({"email": "a@b"})).is_none());
    }

    #[test]
    fn a_provider_s_profile_meets_the_sign_up_rules() {
        let long = "n".repeat(300);
        let profile = profile_of(&json!({"sub": "s", "email": "not an address",
            "name": format!("Ann\u{0}\u{1b}[31m{long}"), "picture": format!("https://x/{long}{long}{long}{long}{long}{long}{long}")}))
        .unwrap();
        assert_eq!(profile.email, None, "an invalid address is none");
        assert!(
            profile.name.starts_with("Ann[31m"),
            "{:?}",
            &profile.name[..8]
        );
        assert_eq!(profile.name.chars().count(), 255);
        assert!(!profile.name.chars().any(char::is_control));
        assert_eq!(
            profile.image, None,
            "a picture URL over 2048 characters is dropped"
        );
    }
}
