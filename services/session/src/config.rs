//! The session service's own settings (every one documented in the README). Its database and
//! listener are kit's shared settings (`SESSION_DATABASE_URL`, `SESSION_LISTEN`); the session
//! lifetimes are kit's too, shared with the gateway.

use std::time::Duration;

use gatehouse_jwks::SigningAlgorithm;
use gatehouse_kit::config::{ConfigError, Env, SessionLifetimes};
use gatehouse_kit::service::service_url;

#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `IDENTITY_URL`: where users are read from.
    pub identity_url: String,
    pub lifetimes: Lifetimes,
    /// `SESSION_CACHE_TTL` (default 300 s): how long a session stays in the read-through cache.
    pub cache_ttl: Duration,
    pub token: TokenSettings,
}

/// The signing keys of users' tokens (the `token` capability).
#[derive(Clone, Debug)]
pub struct TokenSettings {
    /// `JWT_ALGORITHM` (default `EdDSA`; `ES256`, `RS256`): what new keys are. Changing it
    /// mints a key of the new kind at once; the old one stays published for its grace period.
    pub algorithm: SigningAlgorithm,
    /// `JWT_ROTATION_INTERVAL` (seconds, default 30 days): how long a key signs.
    pub rotation_interval: Duration,
    /// `JWT_GRACE_PERIOD` (seconds, default 30 days): how long a key stays published after it
    /// stopped signing.
    pub grace_period: Duration,
    /// `BASE_URL` (the gateway's: set it on the session service too): the tokens' issuer and
    /// audience, which VerifyToken checks.
    pub issuer: String,
}

#[derive(serde::Deserialize)]
struct TokenVariables {
    #[serde(default = "default_algorithm")]
    jwt_algorithm: String,
    #[serde(default = "thirty_days")]
    jwt_rotation_interval: u64,
    #[serde(default = "thirty_days")]
    jwt_grace_period: u64,
    #[serde(default = "default_base_url")]
    base_url: String,
    #[serde(default = "default_expires_in")]
    jwt_expires_in: u64,
}

fn default_expires_in() -> u64 {
    gatehouse_kit::config::DEFAULT_JWT_EXPIRES_IN
}

fn default_algorithm() -> String {
    "EdDSA".into()
}

fn thirty_days() -> u64 {
    30 * 24 * 60 * 60
}

fn default_base_url() -> String {
    gatehouse_kit::config::DEFAULT_BASE_URL.into()
}

impl TokenSettings {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let vars: TokenVariables = env.load()?;
        let algorithm = vars
            .jwt_algorithm
            .parse()
            .map_err(|e: gatehouse_jwks::SignError| ConfigError::Invalid {
                name: "JWT_ALGORITHM".into(),
                value: vars.jwt_algorithm.clone(),
                reason: e.to_string(),
            })?;
        if vars.jwt_rotation_interval == 0 {
            return Err(ConfigError::Invalid {
                name: "JWT_ROTATION_INTERVAL".into(),
                value: "0".into(),
                reason: "a key must sign for at least a second".into(),
            });
        }
        // A key must stay published while tokens it signed are valid.
        if vars.jwt_grace_period < vars.jwt_expires_in {
            return Err(ConfigError::Invalid {
                name: "JWT_GRACE_PERIOD".into(),
                value: vars.jwt_grace_period.to_string(),
                reason: format!(
                    "shorter than JWT_EXPIRES_IN ({} s): tokens signed just before a rotation would stop verifying before they expire",
                    vars.jwt_expires_in
                ),
            });
        }
        Ok(Self {
            algorithm,
            rotation_interval: Duration::from_secs(vars.jwt_rotation_interval),
            grace_period: Duration::from_secs(vars.jwt_grace_period),
            issuer: issuer_of(&vars.base_url)?,
        })
    }
}

/// The issuer better-auth's jwt plugin names: the base URL's origin.
pub fn issuer_of(base_url: &str) -> Result<String, ConfigError> {
    url::Url::parse(base_url)
        .map(|url| url.origin().ascii_serialization())
        .map_err(|e| ConfigError::Invalid {
            name: "BASE_URL".into(),
            value: base_url.into(),
            reason: e.to_string(),
        })
}

#[derive(serde::Deserialize)]
struct CacheSettings {
    #[serde(default = "default_cache_ttl")]
    session_cache_ttl: u64,
}

fn default_cache_ttl() -> u64 {
    300
}

impl SessionConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        use gatehouse_proto::identity;
        let cache: CacheSettings = env.load()?;
        Ok(Self {
            identity_url: service_url(env, identity::NAME, identity::DEFAULT_LISTEN),
            lifetimes: SessionLifetimes::from_env(env)?.into(),
            cache_ttl: Duration::from_secs(cache.session_cache_ttl),
            token: TokenSettings::from_env(env)?,
        })
    }
}

/// The session rules' timings (kit's [`SessionLifetimes`] settings, as durations; tests use
/// sub-second ones).
#[derive(Clone, Copy, Debug)]
pub struct Lifetimes {
    pub expires_in: Duration,
    pub update_age: Duration,
    pub fresh_age: Duration,
    pub dont_remember_expires_in: Duration,
    /// No session outlives this, counted from its creation.
    pub max_lifetime: Duration,
}

impl From<SessionLifetimes> for Lifetimes {
    fn from(settings: SessionLifetimes) -> Self {
        Self {
            expires_in: settings.expires_in(),
            update_age: settings.update_age(),
            fresh_age: settings.fresh_age(),
            dont_remember_expires_in: settings.dont_remember_expires_in(),
            max_lifetime: settings.max_lifetime(),
        }
    }
}
