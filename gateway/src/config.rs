//! The gateway's settings (every one documented in the README).

use std::time::Duration;

use gatehouse_kit::config::{Backends, ConfigError, Env};
use gatehouse_kit::service::service_url;
use gatehouse_proto::{identity, session};

use crate::client_ip::IpNet;

#[derive(Clone, Debug)]
pub struct GatewayConfig {
    /// `GATEWAY_LISTEN` (default `127.0.0.1:3000`).
    pub listen: String,
    /// `BASE_URL` (default `http://localhost:3000`): the public origin; `/api/auth` is below it.
    pub base_url: url::Url,
    /// The base URL's origin plus `TRUSTED_ORIGINS` (comma-separated; `*` wildcards allowed).
    pub trusted_origins: Vec<String>,
    /// `AUTH_SECRET` (or `AUTH_SECRET_FILE`): signs cookies. Standalone mode generates one.
    pub secret: String,
    /// `IDENTITY_URL` / `SESSION_URL`: the services' gRPC addresses.
    pub identity_url: String,
    pub session_url: String,
    /// `CACHE_URL` / `CACHE_TIMEOUT_MS`: where rate-limit counters live (Redis when distributed).
    pub backends: Backends,
    pub cookies: CookieSettings,
    pub rate_limit: RateLimitSettings,
    /// `TRUSTED_PROXIES`: proxy addresses or networks (`10.0.0.0/8`) allowed to set
    /// `x-forwarded-for`.
    pub trusted_proxies: Vec<IpNet>,
}

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
    /// `RATE_LIMIT_WINDOW` / `RATE_LIMIT_MAX` (default 10 s / 100): every path.
    pub default: Rule,
    /// `RATE_LIMIT_SIGN_IN_WINDOW` / `RATE_LIMIT_SIGN_IN_MAX` (default 10 s / 3): routes
    /// registered with [`RateRule::SignIn`](crate::policy::RateRule::SignIn).
    pub sign_in: Rule,
    /// `RATE_LIMIT_EMAIL_WINDOW` / `RATE_LIMIT_EMAIL_MAX` (default 60 s / 3): routes registered
    /// with [`RateRule::Email`](crate::policy::RateRule::Email).
    pub email: Rule,
}

impl GatewayConfig {
    /// `secret` is passed in when the caller already resolved it (standalone generates one).
    pub fn from_env(env: &Env, secret: Option<String>) -> Result<Self, ConfigError> {
        let base = env.string("BASE_URL", "http://localhost:3000");
        let base_url = url::Url::parse(&base).map_err(|e| ConfigError::Invalid {
            name: "BASE_URL".into(),
            value: base.clone(),
            reason: e.to_string(),
        })?;
        let mut trusted_origins = vec![base_url.origin().ascii_serialization()];
        trusted_origins.extend(env.list("TRUSTED_ORIGINS"));
        let secret = match secret {
            Some(secret) => secret,
            None => env
                .secret("AUTH_SECRET")?
                .ok_or_else(|| ConfigError::Missing {
                    name: "AUTH_SECRET".into(),
                    why: "the gateway signs cookies with it (32+ random characters)".into(),
                })?,
        };
        if secret.len() < 32 {
            return Err(ConfigError::Invalid {
                name: "AUTH_SECRET".into(),
                value: "<redacted>".into(),
                reason: "must be at least 32 characters".into(),
            });
        }
        let mut trusted_proxies = Vec::new();
        for proxy in env.list("TRUSTED_PROXIES") {
            trusted_proxies.push(proxy.parse().map_err(|reason| ConfigError::Invalid {
                name: "TRUSTED_PROXIES".into(),
                value: proxy.clone(),
                reason,
            })?);
        }
        let rule = |window: &str, window_default: u64, max: &str, max_default: u64| {
            Ok::<_, ConfigError>(Rule {
                window: env.seconds(window, window_default)?,
                max: env.parse(max, max_default)?,
            })
        };
        Ok(Self {
            listen: env.string("GATEWAY_LISTEN", "127.0.0.1:3000"),
            cookies: CookieSettings {
                prefix: env.string("COOKIE_PREFIX", "better-auth"),
                secure: env.bool("USE_SECURE_COOKIES", base_url.scheme() == "https")?,
                session_max_age: env.seconds("SESSION_EXPIRES_IN", 604_800)?,
                cache_enabled: env.bool("COOKIE_CACHE_ENABLED", false)?,
                cache_max_age: env.seconds("COOKIE_CACHE_MAX_AGE", 60)?,
            },
            base_url,
            trusted_origins,
            secret,
            identity_url: service_url(env, identity::NAME, identity::DEFAULT_LISTEN),
            session_url: service_url(env, session::NAME, session::DEFAULT_LISTEN),
            backends: Backends::from_env(env)?,
            rate_limit: RateLimitSettings {
                enabled: env.bool("RATE_LIMIT_ENABLED", true)?,
                default: rule("RATE_LIMIT_WINDOW", 10, "RATE_LIMIT_MAX", 100)?,
                sign_in: rule("RATE_LIMIT_SIGN_IN_WINDOW", 10, "RATE_LIMIT_SIGN_IN_MAX", 3)?,
                email: rule("RATE_LIMIT_EMAIL_WINDOW", 60, "RATE_LIMIT_EMAIL_MAX", 3)?,
            },
            trusted_proxies,
        })
    }

    /// The effective configuration for the start-up log, secrets left out.
    pub fn describe(&self) -> String {
        format!(
            "listen={} base_url={} trusted_origins={:?} identity={} session={} cache={} secure_cookies={} cookie_cache={} rate_limit={}",
            self.listen,
            self.base_url,
            self.trusted_origins,
            self.identity_url,
            self.session_url,
            gatehouse_kit::config::redact_url(&self.backends.cache_url),
            self.cookies.secure,
            self.cookies.cache_enabled,
            self.rate_limit.enabled,
        )
    }
}
