//! `SOCIAL_PROVIDERS` (or `SOCIAL_PROVIDERS_FILE`): a JSON object keyed by provider id, and
//! the `ACCOUNT_LINKING_*` settings. A provider configured wrongly stops the service at start
//! with a message naming the provider and the field.

use std::collections::BTreeMap;

use gatehouse_kit::config::{ConfigError, Env, ExposeSecret, SecretString};
use serde::Deserialize;
use url::Url;

/// The ids better-auth builds in (the spec's 18): each needs its own endpoints and profile
/// mapping, which are not built yet, so configuring one is refused rather than half working.
pub const BUILT_IN: &[&str] = &[
    "apple",
    "discord",
    "facebook",
    "github",
    "microsoft",
    "google",
    "spotify",
    "twitch",
    "twitter",
    "dropbox",
    "kick",
    "linkedin",
    "gitlab",
    "tiktok",
    "reddit",
    "roblox",
    "vk",
    "zoom",
];

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
    if BUILT_IN.contains(&id) {
        return Err(invalid(
            id,
            "id",
            "built-in providers are not available yet; configure it as a generic provider \
             under another id (discoveryUrl, or authorizationUrl + tokenUrl + userInfoUrl)",
        ));
    }
    let entry: Entry = serde_json::from_value(entry).map_err(|e| invalid(id, "*", e))?;
    let required = |value: Option<String>, field: &str| {
        value
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| invalid(id, field, "required"))
    };
    let client_id = required(entry.client_id, "clientId")?;
    let client_secret = required(entry.client_secret, "clientSecret")?;
    let endpoints = match (
        entry.discovery_url,
        entry.authorization_url,
        entry.token_url,
        entry.user_info_url,
    ) {
        (Some(discovery), None, None, None) => {
            Endpoints::Discovery(url(id, "discoveryUrl", &discovery)?)
        }
        (None, Some(authorization), Some(token), Some(user_info)) => Endpoints::Manual {
            authorization: url(id, "authorizationUrl", &authorization)?,
            token: url(id, "tokenUrl", &token)?,
            user_info: url(id, "userInfoUrl", &user_info)?,
        },
        _ => {
            return Err(invalid(
                id,
                "discoveryUrl",
                "give discoveryUrl (OpenID Connect) or all of authorizationUrl, tokenUrl and \
                 userInfoUrl (OAuth 2), not both",
            ));
        }
    };
    let scopes = match entry.scopes {
        Some(scopes) => scopes,
        // better-auth asks for `openid` alone and then finds no address to sign in with.
        None if matches!(endpoints, Endpoints::Discovery(_)) => {
            ["openid", "email", "profile"].map(String::from).to_vec()
        }
        None => Vec::new(),
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
        pkce: entry.pkce.unwrap_or(true),
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
                r#"{"github":{"clientId":"c","clientSecret":"s"}}"#,
                "github.id",
            ),
            (r#"{"a b":{"clientId":"c","clientSecret":"s"}}"#, "a b.id"),
            (r#"["x"]"#, "SOCIAL_PROVIDERS"),
        ] {
            let error = parse(json).unwrap_err().to_string();
            assert!(error.contains(names), "{json}: {error}");
        }
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
