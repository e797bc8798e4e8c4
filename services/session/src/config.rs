//! The session service's own settings (every one documented in the README). Its database and
//! listener come from kit's shared settings (`SESSION_DATABASE_URL`, `SESSION_LISTEN`).

use std::time::Duration;

use gatehouse_kit::config::{ConfigError, Env};
use gatehouse_kit::service::service_url;

#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `IDENTITY_URL`: where users are read from.
    pub identity_url: String,
    pub lifetimes: Lifetimes,
    /// `SESSION_CACHE_TTL` (default 300 s): how long a session stays in the read-through cache.
    pub cache_ttl: Duration,
}

/// better-auth's session timings.
#[derive(Clone, Copy, Debug)]
pub struct Lifetimes {
    /// `SESSION_EXPIRES_IN` (default 604800 s = 7 days).
    pub expires_in: Duration,
    /// `SESSION_UPDATE_AGE` (default 86400 s = 1 day): how stale the expiry may get before a
    /// read slides it forward.
    pub update_age: Duration,
    /// `SESSION_FRESH_AGE` (default 86400 s; 0 turns freshness checks off): how long after
    /// sign-in a session counts as fresh for sensitive actions.
    pub fresh_age: Duration,
    /// `SESSION_DONT_REMEMBER_EXPIRES_IN` (default 86400 s): a `rememberMe: false` session.
    pub dont_remember_expires_in: Duration,
}

impl SessionConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        use gatehouse_proto::identity;
        Ok(Self {
            identity_url: service_url(env, identity::NAME, identity::DEFAULT_LISTEN),
            lifetimes: Lifetimes {
                expires_in: env.seconds("SESSION_EXPIRES_IN", 604_800)?,
                update_age: env.seconds("SESSION_UPDATE_AGE", 86_400)?,
                fresh_age: env.seconds("SESSION_FRESH_AGE", 86_400)?,
                dont_remember_expires_in: env
                    .seconds("SESSION_DONT_REMEMBER_EXPIRES_IN", 86_400)?,
            },
            cache_ttl: env.seconds("SESSION_CACHE_TTL", 300)?,
        })
    }
}
