//! `SOCIAL_PROVIDERS` (or `SOCIAL_PROVIDERS_FILE`): a JSON object keyed by provider id, and
//! the `ACCOUNT_LINKING_*` settings. A provider configured wrongly stops the service at start
//! with a message naming the provider and the field.

use std::collections::BTreeMap;

use gatehouse_kit::config::{ConfigError, Env, ExposeSecret, SecretString};
use serde::Deserialize;
use url::Url;

use super::builtin::{self, Spec};

/// One provider as configured.
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    pub id: String,
    pub client_id: String,
    pub client_secret: SecretString,
    /// Asked for on every sign-in (an OpenID provider without configured scopes: `openid
    /// email profile`, so that its answer carries the address).
    pub scopes: Vec<String>,
    pub endpoints: Endpoints,
    /// PKCE (S256) on the authorization request; on unless configured off.
    pub pkce: bool,
    /// Overrides `{BASE_URL}/api/auth/callback/{id}`.
    pub redirect_uri: Option<String>,
    pub prompt: Option<String>,
    /// No user is ever created through this provider.
    pub disable_sign_up: bool,
    /// A user is created only when the sign-in asked for it (`requestSignUp`).
    pub disable_implicit_sign_up: bool,
}

/// Where the provider is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoints {
    /// OpenID Connect: everything from the discovery document, read on first use.
    Discovery(Url),
    /// Plain OAuth 2.
    Manual {
        authorization: Url,
        token: Url,
        user_info: Url,
    },
    /// One of better-auth's built-in providers, its URLs resolved (or overridden).
    BuiltIn(BuiltInEndpoints),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltInEndpoints {
    pub spec: &'static Spec,
    pub authorization: Url,
    pub token: Url,
    pub user_info: Url,
    /// For an app's id token: the provider's keys and the issuers its tokens name (a
    /// multi-tenant Microsoft's: `…/{tid}/v2.0`, the token's own tenant).
    pub id_token_keys: Option<(Url, Vec<String>)>,
    /// TikTok's `client_key` (default: the client id).
    pub client_key: Option<String>,
}

/// A provider's entry in `SOCIAL_PROVIDERS`, as written (better-auth's option names).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    client_id: Option<String>,
    client_secret: Option<String>,
    scopes: Option<Vec<String>>,
    discovery_url: Option<String>,
    authorization_url: Option<String>,
    token_url: Option<String>,
    user_info_url: Option<String>,
    pkce: Option<bool>,
    #[serde(rename = "redirectURI")]
    redirect_uri: Option<String>,
    prompt: Option<String>,
    #[serde(default)]
    disable_sign_up: bool,
    #[serde(default)]
    disable_implicit_sign_up: bool,
    /// Built-in providers: GitLab's instance (default `https://gitlab.com`); for one whose
    /// app id tokens are accepted, the issuer they name.
    issuer: Option<String>,
    /// Built-in providers: where the keys that sign an app's id tokens are.
    jwks_url: Option<String>,
    /// Microsoft: the tenant (default `common`).
    tenant_id: Option<String>,
    /// TikTok: the client key (default: `clientId`).
    client_key: Option<String>,
    /// Built-in providers: ask for `scopes` only, not the provider's defaults.
    #[serde(default)]
    disable_default_scope: bool,
}

/// The account-linking rules (`ACCOUNT_LINKING_*`, better-auth's `account.accountLinking`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct AccountLinking {
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub enabled: bool,
    /// Providers whose address is taken as verified for linking (comma-separated).
    pub trusted_providers: String,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub allow_different_emails: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub allow_unlinking_all: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub require_local_email_verified: bool,
}

impl Default for AccountLinking {
    fn default() -> Self {
        Self {
            enabled: true,
            trusted_providers: String::new(),
            allow_different_emails: false,
            allow_unlinking_all: false,
            require_local_email_verified: true,
        }
    }
}

impl AccountLinking {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        env.load_prefixed("ACCOUNT_LINKING_")
    }

    pub fn trusts(&self, provider_id: &str) -> bool {
        self.trusted_providers
            .split(',')
            .any(|id| id.trim() == provider_id)
    }
}

const VARIABLE: &str = "SOCIAL_PROVIDERS";

fn invalid(id: &str, field: &str, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        name: format!("{VARIABLE} ({id}.{field})"),
        value: String::new(),
        reason: reason.to_string(),
    }
}

fn url(id: &str, field: &str, value: &str) -> Result<Url, ConfigError> {
    let parsed = Url::parse(value).map_err(|e| invalid(id, field, e))?;
    if !secure_enough(&parsed) {
        return Err(invalid(
            id,
            field,
            "expected an https URL (http only on loopback, for tests and local providers)",
        ));
    }
    Ok(parsed)
}

/// https, or http to this machine: the client secret and the user's identity travel here.
pub fn secure_enough(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(host)) => host == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// A generic provider's endpoints: discovered, or the three of plain OAuth 2.
fn generic_endpoints(id: &str, entry: &Entry) -> Result<Endpoints, ConfigError> {
    let built_in_only = [
        ("issuer", entry.issuer.is_some()),
        ("jwksUrl", entry.jwks_url.is_some()),
        ("tenantId", entry.tenant_id.is_some()),
        ("clientKey", entry.client_key.is_some()),
        ("disableDefaultScope", entry.disable_default_scope),
    ];
    if let Some((field, _)) = built_in_only.iter().find(|(_, set)| *set) {
        return Err(invalid(id, field, "only for a built-in provider"));
    }
    match (
        &entry.discovery_url,
        &entry.authorization_url,
        &entry.token_url,
        &entry.user_info_url,
    ) {
        (Some(discovery), None, None, None) => {
            Ok(Endpoints::Discovery(url(id, "discoveryUrl", discovery)?))
        }
        (None, Some(authorization), Some(token), Some(user_info)) => Ok(Endpoints::Manual {
            authorization: url(id, "authorizationUrl", authorization)?,
            token: url(id, "tokenUrl", token)?,
            user_info: url(id, "userInfoUrl", user_info)?,
        }),
        _ => Err(invalid(
            id,
            "discoveryUrl",
            "give discoveryUrl (OpenID Connect) or all of authorizationUrl, tokenUrl and \
             userInfoUrl (OAuth 2), not both",
        )),
    }
}

/// A built-in provider's URLs: its own, with GitLab's instance and Microsoft's tenant filled
/// in, each overridable.
fn built_in_endpoints(
    id: &str,
    spec: &'static Spec,
    entry: &Entry,
) -> Result<BuiltInEndpoints, ConfigError> {
    if entry.discovery_url.is_some() {
        return Err(invalid(
            id,
            "discoveryUrl",
            "a built-in provider's endpoints are its own (override them with \
             authorizationUrl, tokenUrl and userInfoUrl)",
        ));
    }
    let gitlab = entry
        .issuer
        .as_deref()
        .filter(|_| spec.kind == builtin::BuiltIn::Gitlab)
        .unwrap_or("https://gitlab.com")
        .trim_end_matches('/')
        .to_string();
    if spec.kind == builtin::BuiltIn::Gitlab {
        url(id, "issuer", &gitlab)?;
    }
    let tenant = entry.tenant_id.as_deref().unwrap_or("common");
    let fill = |template: &str| {
        template
            .replace("{issuer}", &gitlab)
            .replace("{tenant}", tenant)
    };
    let pick = |field: &str, given: &Option<String>, template: &str| match given {
        Some(given) => url(id, field, given),
        None => url(id, field, &fill(template)),
    };
    let id_token_keys = match spec.id_token {
        None => None,
        Some(keys) => {
            let jwks = pick("jwksUrl", &entry.jwks_url, keys.jwks)?;
            let multi_tenant = ["common", "organizations", "consumers"].contains(&tenant);
            let issuers = match &entry.issuer {
                Some(issuer) if spec.kind != builtin::BuiltIn::Gitlab => vec![issuer.clone()],
                _ if spec.kind == builtin::BuiltIn::Microsoft && multi_tenant => {
                    vec!["https://login.microsoftonline.com/{tid}/v2.0".to_string()]
                }
                _ => keys.issuers.iter().map(|issuer| fill(issuer)).collect(),
            };
            Some((jwks, issuers))
        }
    };
    Ok(BuiltInEndpoints {
        spec,
        authorization: pick(
            "authorizationUrl",
            &entry.authorization_url,
            spec.authorization,
        )?,
        token: pick("tokenUrl", &entry.token_url, spec.token)?,
        user_info: pick("userInfoUrl", &entry.user_info_url, spec.user_info)?,
        id_token_keys,
        client_key: entry.client_key.clone(),
    })
}

/// The providers `SOCIAL_PROVIDERS` configures (none when unset), in id order.
pub fn providers(env: &Env) -> Result<Vec<ProviderConfig>, ConfigError> {
    let Some(raw) = env.secret(VARIABLE)? else {
        return Ok(Vec::new());
    };
    let entries: BTreeMap<String, serde_json::Value> = serde_json::from_str(raw.expose_secret())
        .map_err(|e| ConfigError::Invalid {
            name: VARIABLE.into(),
            value: String::new(),
            reason: format!("expected a JSON object keyed by provider id: {e}"),
        })?;
    entries
        .into_iter()
        .map(|(id, entry)| provider(&id, entry))
        .collect()
}

fn provider(id: &str, entry: serde_json::Value) -> Result<ProviderConfig, ConfigError> {
    let valid_id = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_id {
        return Err(invalid(id, "id", "letters, digits, '-' and '_' only"));
    }
    let entry: Entry = serde_json::from_value(entry).map_err(|e| invalid(id, "*", e))?;
    let required = |value: Option<String>, field: &str| {
        value
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| invalid(id, field, "required"))
    };
    let client_id = required(entry.client_id.clone(), "clientId")?;
    let client_secret = required(entry.client_secret.clone(), "clientSecret")?;
    let built_in = builtin::spec(id);
    let endpoints = match built_in {
        Some(spec) => Endpoints::BuiltIn(built_in_endpoints(id, spec, &entry)?),
        None => generic_endpoints(id, &entry)?,
    };
    let scopes = match (built_in, entry.scopes.clone()) {
        (Some(spec), scopes) => {
            let defaults = spec.scopes.iter().map(|s| s.to_string());
            let mut all: Vec<String> = if entry.disable_default_scope {
                Vec::new()
            } else {
                defaults.collect()
            };
            for scope in scopes.unwrap_or_default() {
                if !all.contains(&scope) {
                    all.push(scope);
                }
            }
            all
        }
        (None, Some(scopes)) => scopes,
        // better-auth asks for `openid` alone and then finds no address to sign in with.
        (None, None) if matches!(endpoints, Endpoints::Discovery(_)) => {
            ["openid", "email", "profile"].map(String::from).to_vec()
        }
        (None, None) => Vec::new(),
    };
    if let Some(redirect) = &entry.redirect_uri {
        url(id, "redirectURI", redirect)?;
    }
    Ok(ProviderConfig {
        id: id.to_string(),
        client_id,
        client_secret: client_secret.into(),
        scopes,
        endpoints,
        pkce: entry.pkce.unwrap_or(built_in.is_none_or(|spec| spec.pkce)),
        redirect_uri: entry.redirect_uri,
        prompt: entry.prompt,
        disable_sign_up: entry.disable_sign_up,
        disable_implicit_sign_up: entry.disable_implicit_sign_up,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Vec<ProviderConfig>, ConfigError> {
        providers(&Env::from_pairs([(VARIABLE, json)]))
    }

    #[test]
    fn a_discovery_provider_asks_for_the_address_by_default() {
        let providers = parse(
            r#"{"test-oidc":{"clientId":"gatehouse-test","clientSecret":"s",
                "discoveryUrl":"http://127.0.0.1:9090/.well-known/openid-configuration"}}"#,
        )
        .unwrap();
        assert_eq!(providers.len(), 1);
        let provider = &providers[0];
        assert_eq!(provider.id, "test-oidc");
        assert_eq!(provider.scopes, ["openid", "email", "profile"]);
        assert!(provider.pkce);
        assert!(matches!(provider.endpoints, Endpoints::Discovery(_)));
        assert!(
            !format!("{provider:?}").contains("\"s\""),
            "the secret is not printed"
        );
        assert!(parse("").unwrap().is_empty() || parse("{}").unwrap().is_empty());
    }

    #[test]
    fn a_plain_oauth_provider_needs_all_three_endpoints() {
        let ok = parse(
            r#"{"corp":{"clientId":"c","clientSecret":"s","pkce":false,"scopes":["read"],
                "authorizationUrl":"https://id.example/auth","tokenUrl":"https://id.example/token",
                "userInfoUrl":"https://id.example/me"}}"#,
        )
        .unwrap();
        assert!(!ok[0].pkce);
        assert_eq!(ok[0].scopes, ["read"]);
        let missing = parse(
            r#"{"corp":{"clientId":"c","clientSecret":"s","authorizationUrl":"https://id.example/auth"}}"#,
        );
        assert!(
            missing
                .unwrap_err()
                .to_string()
                .contains("corp.discoveryUrl")
        );
    }

    #[test]
    fn bad_entries_name_the_provider_and_the_field() {
        for (json, names) in [
            (
                r#"{"x":{"clientSecret":"s","discoveryUrl":"https://a/"}}"#,
                "x.clientId",
            ),
            (
                r#"{"x":{"clientId":"c","discoveryUrl":"https://a/"}}"#,
                "x.clientSecret",
            ),
            (
                r#"{"x":{"clientId":"c","clientSecret":"s","discoveryUrl":"ftp://a/"}}"#,
                "x.discoveryUrl",
            ),
            (
                r#"{"x":{"clientId":"c","clientSecret":"s","discoveryUrl":"https://a/","colour":1}}"#,
                "x.*",
            ),
            (
                r#"{"github":{"clientId":"c","clientSecret":"s","discoveryUrl":"https://a/"}}"#,
                "github.discoveryUrl",
            ),
            (
                r#"{"x":{"clientId":"c","clientSecret":"s","discoveryUrl":"https://a/","tenantId":"t"}}"#,
                "x.tenantId",
            ),
            (
                r#"{"gitlab":{"clientId":"c","clientSecret":"s","issuer":"http://gitlab.corp"}}"#,
                "gitlab.issuer",
            ),
            (r#"{"a b":{"clientId":"c","clientSecret":"s"}}"#, "a b.id"),
            (r#"["x"]"#, "SOCIAL_PROVIDERS"),
        ] {
            let error = parse(json).unwrap_err().to_string();
            assert!(error.contains(names), "{json}: {error}");
        }
    }

    #[test]
    fn built_in_providers_take_their_own_endpoints_scopes_and_overrides() {
        let configured = parse(
            r#"{"github":{"clientId":"c","clientSecret":"s","scopes":["repo"]},
                "gitlab":{"clientId":"c","clientSecret":"s","issuer":"https://git.corp.example/"},
                "microsoft":{"clientId":"c","clientSecret":"s","tenantId":"contoso"},
                "zoom":{"clientId":"c","clientSecret":"s"},
                "google":{"clientId":"c","clientSecret":"s","disableDefaultScope":true,
                  "scopes":["openid"],"tokenUrl":"http://127.0.0.1:9/token","jwksUrl":"http://127.0.0.1:9/keys"}}"#,
        )
        .unwrap();
        let by_id = |id: &str| configured.iter().find(|p| p.id == id).unwrap();
        let endpoints = |id: &str| match &by_id(id).endpoints {
            Endpoints::BuiltIn(built_in) => built_in.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(by_id("github").scopes, ["read:user", "user:email", "repo"]);
        assert!(by_id("github").pkce);
        assert_eq!(
            endpoints("gitlab").user_info.as_str(),
            "https://git.corp.example/api/v4/user"
        );
        let microsoft = endpoints("microsoft");
        assert_eq!(
            microsoft.authorization.as_str(),
            "https://login.microsoftonline.com/contoso/oauth2/v2.0/authorize"
        );
        assert_eq!(
            microsoft.id_token_keys.unwrap().1,
            ["https://login.microsoftonline.com/contoso/v2.0"]
        );
        assert!(
            by_id("zoom").scopes.is_empty(),
            "Zoom is asked for no scope"
        );
        let google = endpoints("google");
        assert_eq!(by_id("google").scopes, ["openid"]);
        assert_eq!(google.token.as_str(), "http://127.0.0.1:9/token");
        assert_eq!(
            google.authorization.as_str(),
            "https://accounts.google.com/o/oauth2/v2/auth"
        );
        let (jwks, issuers) = google.id_token_keys.unwrap();
        assert_eq!(jwks.as_str(), "http://127.0.0.1:9/keys");
        assert_eq!(
            issuers,
            ["https://accounts.google.com", "accounts.google.com"]
        );
    }

    #[test]
    fn linking_defaults_follow_better_auth() {
        let linking = AccountLinking::from_env(&Env::from_pairs([("X", "1")])).unwrap();
        assert!(linking.enabled && linking.require_local_email_verified);
        assert!(!linking.allow_different_emails && !linking.allow_unlinking_all);
        let env = Env::from_pairs([("ACCOUNT_LINKING_TRUSTED_PROVIDERS", "a, test-oidc")]);
        assert!(AccountLinking::from_env(&env).unwrap().trusts("test-oidc"));
    }
}
