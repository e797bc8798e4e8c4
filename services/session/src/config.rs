//! The session service's settings (every one documented in the README).

use std::time::Duration;

use gatehouse_kit::config::{ConfigError, Env};

#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `SESSION_DATABASE_URL`: `sqlite://…` or `postgres://…`.
    pub database_url: String,
    /// `SESSION_DATABASE_MAX_CONNECTIONS` (default 10).
    pub database_max_connections: u32,
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
    pub fn from_env(env: &Env, data_dir: &str) -> Result<Self, ConfigError> {
        Ok(Self {
            database_url: env.string(
                "SESSION_DATABASE_URL",
                &format!("sqlite://{data_dir}/session.sqlite"),
            ),
            database_max_connections: env.parse("SESSION_DATABASE_MAX_CONNECTIONS", 10)?,
            identity_url: env.string("IDENTITY_URL", "http://127.0.0.1:50051"),
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
