//! The session service's own settings (every one documented in the README). Its database and
//! listener are kit's shared settings (`SESSION_DATABASE_URL`, `SESSION_LISTEN`); the session
//! lifetimes are kit's too, shared with the gateway.

use std::time::Duration;

use gatehouse_kit::config::{ConfigError, Env, SessionLifetimes};
use gatehouse_kit::service::service_url;

#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `IDENTITY_URL`: where users are read from.
    pub identity_url: String,
    pub lifetimes: Lifetimes,
    /// `SESSION_CACHE_TTL` (default 300 s): how long a session stays in the read-through cache.
    pub cache_ttl: Duration,
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
