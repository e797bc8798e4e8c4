//! The gateway's settings (every one documented in the README): [`GatewaySettings`] is what
//! the environment says, with the defaults in its `Default`; [`GatewayConfig`] is the checked,
//! derived form the handlers use. Both print without their secrets.

use std::time::Duration;

use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::config::{
    Backends, ConfigError, CredentialRules, Env, ExposeSecret, SessionLifetimes,
};
use gatehouse_kit::listener::HttpLimits;
use gatehouse_kit::service_auth::ServiceToken;
use serde::Deserialize;

use crate::client_ip::IpNet;
use crate::clients::ServiceUrls;

/// The gateway's variables, one field each (`base_url` ← `BASE_URL`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct GatewaySettings {
    pub gateway_listen: String,
    pub gateway_ops_listen: String,
    pub base_url: String,
    pub trusted_origins: Vec<String>,
    pub trusted_proxies: Vec<String>,
    pub cookie_prefix: String,
    #[serde(deserialize_with = "gatehouse_kit::config::optional_flag")]
    pub use_secure_cookies: Option<bool>,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub cookie_cache_enabled: bool,
    pub cookie_cache_max_age: u64,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub rate_limit_enabled: bool,
    pub rate_limit_window: u64,
    pub rate_limit_max: u64,
    pub rate_limit_sign_in_window: u64,
    pub rate_limit_sign_in_max: u64,
    pub rate_limit_email_window: u64,
    pub rate_limit_email_max: u64,
    pub rate_limit_replay_window: u64,
    pub rate_limit_replay_max: u64,
    pub web_dir: String,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub dev_mailbox: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub api_key_sessions: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub jwt_set_auth_header: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub two_factor_social_sign_in: bool,
    pub jwt_expires_in: u64,
    pub captcha_provider: String,
    pub captcha_site_key: String,
    pub captcha_site_verify_url: String,
    pub captcha_endpoints: Vec<String>,
    pub captcha_min_score: f64,
    pub captcha_timeout_ms: u64,
    pub brand_name: String,
    pub brand_logo_url: String,
    pub brand_accent: String,
    pub brand_accent_dark: String,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            gateway_listen: "127.0.0.1:3000".into(),
            gateway_ops_listen: "127.0.0.1:9300".into(),
            base_url: gatehouse_kit::config::DEFAULT_BASE_URL.into(),
            trusted_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            cookie_prefix: "better-auth".into(),
            use_secure_cookies: None,
            cookie_cache_enabled: false,
            cookie_cache_max_age: 60,
            rate_limit_enabled: true,
            rate_limit_window: 10,
            rate_limit_max: 100,
            rate_limit_sign_in_window: 10,
            rate_limit_sign_in_max: 3,
            rate_limit_email_window: 60,
            rate_limit_email_max: 3,
            rate_limit_replay_window: 60,
            rate_limit_replay_max: 10,
            web_dir: "web/out".into(),
            dev_mailbox: false,
            api_key_sessions: true,
            jwt_set_auth_header: false,
            two_factor_social_sign_in: false,
            jwt_expires_in: gatehouse_kit::config::DEFAULT_JWT_EXPIRES_IN,
            captcha_provider: String::new(),
            captcha_site_key: String::new(),
            captcha_site_verify_url: String::new(),
            captcha_endpoints: DEFAULT_CAPTCHA_ENDPOINTS
                .iter()
                .map(|e| e.to_string())
                .collect(),
            captcha_min_score: 0.5,
            captcha_timeout_ms: 10_000,
            brand_name: "Gatehouse".into(),
            brand_logo_url: String::new(),
            brand_accent: String::new(),
            brand_accent_dark: String::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct GatewayConfig {
    /// `GATEWAY_LISTEN` (default `127.0.0.1:3000`): `/api/auth`, nothing else.
    pub listen: String,
    /// `GATEWAY_OPS_LISTEN` (default `127.0.0.1:9300`): `/metrics` and `/healthz`.
    pub ops_listen: String,
    /// `SERVICE_TOKEN`: sent on every call to the services.
    pub service_token: ServiceToken,
    /// `HTTP_*`: the listeners' timeouts and connection limit.
    pub http: HttpLimits,
    /// `BASE_URL` (default `http://localhost:3000`): the public origin; `/api/auth` is below it.
    pub base_url: url::Url,
    /// The base URL's origin plus `TRUSTED_ORIGINS` (comma-separated; `*` wildcards allowed).
    pub trusted_origins: Vec<String>,
    /// `AUTH_SECRET` / `AUTH_SECRETS` (or their `_FILE`): the current one signs cookies.
    /// Standalone mode generates one.
    pub secrets: AuthSecrets,
    /// `IDENTITY_URL`, `SESSION_URL`, …: the gRPC addresses of the services the gateway calls.
    pub services: ServiceUrls,
    /// `CACHE_URL` / `CACHE_TIMEOUT_MS`: where rate-limit counters live (Redis when distributed).
    pub backends: Backends,
    pub cookies: CookieSettings,
    pub rate_limit: RateLimitSettings,
    /// `TRUSTED_PROXIES`: proxy addresses or networks (`10.0.0.0/8`) allowed to set
    /// `x-forwarded-for`.
    pub trusted_proxies: Vec<IpNet>,
    /// `WEB_DIR` (default `web/out`, relative to the working directory): the web app's static
    /// export, served at `/`. Empty turns the web app off.
    pub web_dir: Option<std::path::PathBuf>,
    /// `DEV_MAILBOX` (default false; `scripts/run.sh` turns it on): serve the newest mails at
    /// `GET /api/dev/mailbox`, to loopback clients naming a loopback host only.
    pub dev_mailbox: bool,
    /// `API_KEY_SESSIONS` (default true): a request carrying `x-api-key` is signed in as the
    /// key's owner on every route that takes a session.
    pub api_key_sessions: bool,
    /// `TWO_FACTOR_SOCIAL_SIGN_IN` (default false, as better-auth): a social sign-in of a user
    /// with the second factor on asks for it too.
    pub two_factor_social_sign_in: bool,
    pub tokens: TokenSettings,
    /// `CAPTCHA_*`: none unless `CAPTCHA_PROVIDER` is set.
    pub captcha: Option<CaptchaSettings>,
    /// `PASSWORD_*_LENGTH`, `USERNAME_*_LENGTH`: identity enforces them; the OpenAPI document
    /// says them.
    pub credentials: CredentialRules,
    /// The roles an admin may give (`admin`, `user` and `ADMIN_CUSTOM_ROLES`'s) and a member
    /// may have (`owner`, `admin`, `member` and `ORGANIZATION_ROLES`'s), for the document.
    pub admin_role_names: Vec<String>,
    pub organization_role_names: Vec<String>,
    /// `BRAND_*`: the product's name, logo and accent colour on the web app.
    pub brand: crate::brand::Brand,
}

/// Users' signed tokens (better-auth's jwt plugin: `/token`, get-session's `set-auth-jwt`).
#[derive(Clone, Debug)]
pub struct TokenSettings {
    /// `JWT_SET_AUTH_HEADER` (default false): get-session answers the user's token in a
    /// `set-auth-jwt` header (a signature per call, hence off unless asked for).
    pub set_auth_header: bool,
    /// `JWT_EXPIRES_IN` (seconds, default 900): a token's lifetime.
    pub expires_in: Duration,
    /// The base URL's origin: the tokens' `iss` and `aud`.
    pub issuer: String,
}

/// The routes better-auth's captcha plugin guards unless told otherwise.
pub const DEFAULT_CAPTCHA_ENDPOINTS: &[&str] = &[
    "/sign-up/email",
    "/sign-in/email",
    "/request-password-reset",
];

/// A captcha provider whose siteverify the gateway asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CaptchaProvider {
    CloudflareTurnstile,
    GoogleRecaptcha,
    Hcaptcha,
}

impl CaptchaProvider {
    pub fn name(self) -> &'static str {
        match self {
            Self::CloudflareTurnstile => "cloudflare-turnstile",
            Self::GoogleRecaptcha => "google-recaptcha",
            Self::Hcaptcha => "hcaptcha",
        }
    }

    /// Where the provider's widget loads its scripts from (the pages' `script-src`).
    pub fn script_sources(self) -> &'static [&'static str] {
        match self {
            Self::CloudflareTurnstile => &["https://challenges.cloudflare.com"],
            Self::GoogleRecaptcha => &[
                "https://www.google.com/recaptcha/",
                "https://www.gstatic.com/recaptcha/",
            ],
            Self::Hcaptcha => &["https://hcaptcha.com", "https://*.hcaptcha.com"],
        }
    }

    /// The provider's own siteverify.
    fn site_verify_url(self) -> &'static str {
        match self {
            Self::CloudflareTurnstile => {
                "https://challenges.cloudflare.com/turnstile/v0/siteverify"
            }
            Self::GoogleRecaptcha => "https://www.google.com/recaptcha/api/siteverify",
            Self::Hcaptcha => "https://api.hcaptcha.com/siteverify",
        }
    }
}

impl std::fmt::Display for CaptchaProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug)]
pub struct CaptchaSettings {
    /// `CAPTCHA_PROVIDER`: `cloudflare-turnstile`, `google-recaptcha` or `hcaptcha`.
    pub provider: CaptchaProvider,
    /// `CAPTCHA_SECRET_KEY` (or `_FILE`): required with a provider.
    pub secret_key: secrecy::SecretString,
    /// `CAPTCHA_SITE_KEY`: the web app's widget (and hCaptcha's `sitekey` check).
    pub site_key: Option<String>,
    /// `CAPTCHA_SITE_VERIFY_URL`: another siteverify than the provider's.
    pub site_verify_url: url::Url,
    /// `CAPTCHA_ENDPOINTS` (default, and when empty, `/sign-up/email,/sign-in/email,
    /// /request-password-reset`): paths below `/api/auth`, `*` for any run of characters.
    pub endpoints: Vec<String>,
    /// `CAPTCHA_MIN_SCORE` (default 0.5): reCAPTCHA v3 scores below it are refused.
    pub min_score: f64,
    /// `CAPTCHA_TIMEOUT_MS` (default 10000): the longest the provider may take.
    pub timeout: Duration,
}

impl CaptchaSettings {
    fn from_env(settings: &GatewaySettings, env: &Env) -> Result<Option<Self>, ConfigError> {
        let name = settings.captcha_provider.trim();
        if name.is_empty() {
            return Ok(None);
        }
        let provider = [
            CaptchaProvider::CloudflareTurnstile,
            CaptchaProvider::GoogleRecaptcha,
            CaptchaProvider::Hcaptcha,
        ]
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            invalid(
                "CAPTCHA_PROVIDER",
                name,
                "expected cloudflare-turnstile, google-recaptcha or hcaptcha",
            )
        })?;
        let secret_key = env
            .secret("CAPTCHA_SECRET_KEY")?
            .ok_or_else(|| ConfigError::Missing {
                name: "CAPTCHA_SECRET_KEY".into(),
                why: "CAPTCHA_PROVIDER is set: siteverify takes the provider's secret key".into(),
            })?;
        let url = match settings.captcha_site_verify_url.trim() {
            "" => provider.site_verify_url(),
            url => url,
        };
        let site_verify_url =
            url::Url::parse(url).map_err(|e| invalid("CAPTCHA_SITE_VERIFY_URL", url, e))?;
        let endpoints: Vec<String> = settings
            .captcha_endpoints
            .iter()
            .map(|e| e.trim())
            .filter(|e| !e.is_empty())
            .map(|e| {
                let e = e.strip_prefix(crate::BASE_PATH).unwrap_or(e);
                let trimmed = e.trim_end_matches('/');
                if !trimmed.is_empty() && (e.starts_with('/') || e.starts_with('*')) {
                    Ok(trimmed.to_string())
                } else {
                    Err(invalid(
                        "CAPTCHA_ENDPOINTS",
                        e,
                        "a path below /api/auth, such as /sign-in/email",
                    ))
                }
            })
            .collect::<Result<_, _>>()?;
        // An empty list means the defaults, as better-auth reads it: never "guard nothing".
        let endpoints = if endpoints.is_empty() {
            DEFAULT_CAPTCHA_ENDPOINTS
                .iter()
                .map(|e| e.to_string())
                .collect()
        } else {
            endpoints
        };
        if !(0.0..=1.0).contains(&settings.captcha_min_score) {
            return Err(invalid(
                "CAPTCHA_MIN_SCORE",
                &settings.captcha_min_score.to_string(),
                "a score between 0 and 1",
            ));
        }
        Ok(Some(Self {
            provider,
            secret_key,
            site_key: Some(settings.captcha_site_key.trim().to_string()).filter(|k| !k.is_empty()),
            site_verify_url,
            endpoints,
            min_score: settings.captcha_min_score,
            timeout: Duration::from_millis(settings.captcha_timeout_ms.max(1)),
        }))
    }
}

/// The roles identity and the organization service know without any setting.
pub const BUILT_IN_ADMIN_ROLES: &[&str] = &["admin", "user"];
pub const BUILT_IN_MEMBER_ROLES: &[&str] = &["owner", "admin", "member"];

#[derive(Clone, Debug)]
pub struct CookieSettings {
    /// `COOKIE_PREFIX` (default `better-auth`).
    pub prefix: String,
    /// `USE_SECURE_COOKIES` (default: true when BASE_URL is https): `Secure` + `__Secure-`.
    pub secure: bool,
    /// `SESSION_EXPIRES_IN` (default 604800 s): the session cookie's Max-Age.
    pub session_max_age: Duration,
    /// `COOKIE_CACHE_ENABLED` (default false): sign the session into a `session_data` cookie
    /// so get-session needs no backend call while it is valid.
    pub cache_enabled: bool,
    /// `COOKIE_CACHE_MAX_AGE` (default 60 s).
    pub cache_max_age: Duration,
}

#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub window: Duration,
    pub max: u64,
}

#[derive(Clone, Debug)]
pub struct RateLimitSettings {
    /// `RATE_LIMIT_ENABLED` (default true).
    pub enabled: bool,
    /// `RATE_LIMIT_WINDOW` / `RATE_LIMIT_MAX` (default 10 s / 100): every route.
    pub default: Rule,
    /// `RATE_LIMIT_SIGN_IN_WINDOW` / `RATE_LIMIT_SIGN_IN_MAX` (default 10 s / 3): routes
    /// registered with [`RateRule::SignIn`](crate::policy::RateRule::SignIn).
    pub sign_in: Rule,
    /// `RATE_LIMIT_EMAIL_WINDOW` / `RATE_LIMIT_EMAIL_MAX` (default 60 s / 3): routes registered
    /// with [`RateRule::Email`](crate::policy::RateRule::Email).
    pub email: Rule,
    /// `RATE_LIMIT_REPLAY_WINDOW` / `RATE_LIMIT_REPLAY_MAX` (default 60 s / 10): an
    /// organization's billing test events and replays, counted per organization
    /// ([`RateRule::Replay`](crate::policy::RateRule::Replay)).
    pub replay: Rule,
}

fn invalid(name: &str, value: &str, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        name: name.into(),
        value: value.into(),
        reason: reason.to_string(),
    }
}

impl GatewayConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let settings: GatewaySettings = env.load()?;
        let base_url = url::Url::parse(&settings.base_url)
            .map_err(|e| invalid("BASE_URL", &settings.base_url, e))?;
        let mut trusted_origins = vec![base_url.origin().ascii_serialization()];
        trusted_origins.extend(
            settings
                .trusted_origins
                .iter()
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty()),
        );
        let secrets = AuthSecrets::required(
            env,
            "the gateway signs cookies with it (32+ random characters)",
        )?;
        let trusted_proxies = settings
            .trusted_proxies
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .map(|proxy| {
                proxy
                    .parse()
                    .map_err(|reason: String| invalid("TRUSTED_PROXIES", proxy, reason))
            })
            .collect::<Result<_, _>>()?;
        let rule = |window: u64, max: u64| Rule {
            window: Duration::from_secs(window),
            max,
        };
        let s = &settings;
        let issuer = base_url.origin().ascii_serialization();
        Ok(Self {
            listen: s.gateway_listen.clone(),
            ops_listen: s.gateway_ops_listen.clone(),
            service_token: ServiceToken::from_env(env)?,
            http: HttpLimits::from_env(env)?,
            cookies: CookieSettings {
                prefix: s.cookie_prefix.clone(),
                secure: s.use_secure_cookies.unwrap_or(base_url.scheme() == "https"),
                session_max_age: SessionLifetimes::from_env(env)?.expires_in(),
                cache_enabled: s.cookie_cache_enabled,
                cache_max_age: Duration::from_secs(s.cookie_cache_max_age),
            },
            rate_limit: RateLimitSettings {
                enabled: s.rate_limit_enabled,
                default: rule(s.rate_limit_window, s.rate_limit_max),
                sign_in: rule(s.rate_limit_sign_in_window, s.rate_limit_sign_in_max),
                email: rule(s.rate_limit_email_window, s.rate_limit_email_max),
                replay: rule(s.rate_limit_replay_window, s.rate_limit_replay_max),
            },
            base_url,
            trusted_origins,
            secrets,
            services: ServiceUrls::from_env(env),
            backends: Backends::from_env(env)?,
            trusted_proxies,
            dev_mailbox: s.dev_mailbox,
            api_key_sessions: s.api_key_sessions,
            two_factor_social_sign_in: s.two_factor_social_sign_in,
            captcha: CaptchaSettings::from_env(s, env)?,
            tokens: TokenSettings {
                set_auth_header: s.jwt_set_auth_header,
                expires_in: Duration::from_secs(
                    s.jwt_expires_in
                        .clamp(1, gatehouse_kit::config::MAX_JWT_EXPIRES_IN),
                ),
                issuer,
            },
            credentials: CredentialRules::from_env(env)?,
            admin_role_names: gatehouse_kit::config::role_names(
                env,
                "ADMIN_CUSTOM_ROLES",
                BUILT_IN_ADMIN_ROLES,
            ),
            organization_role_names: gatehouse_kit::config::role_names(
                env,
                "ORGANIZATION_ROLES",
                BUILT_IN_MEMBER_ROLES,
            ),
            brand: crate::brand::Brand::from_settings(
                &s.brand_name,
                &s.brand_logo_url,
                &s.brand_accent,
                &s.brand_accent_dark,
            )?,
            web_dir: Some(s.web_dir.trim())
                .filter(|dir| !dir.is_empty())
                .map(std::path::PathBuf::from),
        })
    }

    /// The cookie-signing secret (the current version).
    pub fn secret(&self) -> &str {
        self.secrets.current().expose_secret()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_effective_configuration_prints_without_its_secrets() {
        let env = Env::from_pairs([
            ("AUTH_SECRET", "s3cret-s3cret-s3cret-s3cret-s3cret-hunter2"),
            ("CACHE_URL", "redis://default:pw-hunter2@cache:6379"),
            (
                "TRUSTED_ORIGINS",
                "https://a.example.com, https://*.b.example.com",
            ),
            ("RATE_LIMIT_SIGN_IN_MAX", "7"),
            ("SERVICE_TOKEN", "service-token-service-token-hunter2"),
        ]);
        let config = GatewayConfig::from_env(&env).unwrap();
        let printed = format!("{config:?}");
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(
            printed.contains("redis://default:***@cache:6379"),
            "{printed}"
        );
        assert_eq!(
            config.trusted_origins,
            [
                "http://localhost:3000",
                "https://a.example.com",
                "https://*.b.example.com"
            ]
        );
        assert_eq!(config.rate_limit.sign_in.max, 7);
        assert_eq!(config.cookies.session_max_age, Duration::from_secs(604_800));
        assert!(config.secret().ends_with("hunter2"));
    }

    #[test]
    fn bad_values_name_their_variable() {
        let short = Env::from_pairs([("AUTH_SECRET", "short")]);
        let error = GatewayConfig::from_env(&short).unwrap_err().to_string();
        assert!(
            error.contains("AUTH_SECRET") && !error.contains("short"),
            "{error}"
        );
        let env = Env::from_pairs([
            ("AUTH_SECRET", "0123456789abcdef0123456789abcdef"),
            ("TRUSTED_PROXIES", "10.0.0.0/99"),
            ("SERVICE_TOKEN", "service-token-service-token-hunter2"),
        ]);
        let error = GatewayConfig::from_env(&env).unwrap_err().to_string();
        assert!(error.contains("TRUSTED_PROXIES"), "{error}");
        let missing = GatewayConfig::from_env(&Env::from_pairs([("X", "y")]));
        assert!(missing.unwrap_err().to_string().contains("AUTH_SECRET"));
    }
}
