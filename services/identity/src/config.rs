//! The identity service's own settings (every one documented in the README). Its database and
//! listener are kit's shared settings (`IDENTITY_DATABASE_URL`, `IDENTITY_LISTEN`).

use gatehouse_kit::config::{ConfigError, Env};
use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct IdentityConfig {
    /// `HASH_POOL_SIZE`: password hashes computed at once (default: the number of cores).
    /// Each argon2id hash holds 19 MiB while it runs.
    pub hash_pool_size: usize,
    /// `HASH_QUEUE_LIMIT`: sign-ins that may wait for a hashing thread (default 32 per
    /// thread); more are answered 503 at once instead of piling up past their timeouts.
    pub hash_queue_limit: Option<usize>,
    /// `PASSWORD_MIN_LENGTH` (default 8) and `PASSWORD_MAX_LENGTH` (default 128), in characters.
    pub password_min_length: usize,
    pub password_max_length: usize,
    /// `SIGN_IN_THROTTLE_AFTER` (default 5): failed sign-ins for one account allowed within
    /// `SIGN_IN_THROTTLE_WINDOW` (default 900 s) before each further failure makes the next
    /// attempt wait 1 s, doubling up to `SIGN_IN_THROTTLE_MAX_DELAY` (default 30 s).
    pub sign_in_throttle_after: u64,
    pub sign_in_throttle_window: u64,
    pub sign_in_throttle_max_delay: u64,
    /// `SIGN_IN_HASH_BUDGET` (default half of `HASH_QUEUE_LIMIT`): queued hashes beyond which
    /// sign-ins get 429 with `X-Retry-After` instead of a place in the queue.
    pub sign_in_hash_budget: Option<usize>,
    /// `USERNAME_MIN_LENGTH` (default 3) and `USERNAME_MAX_LENGTH` (default 30), in characters.
    pub username_min_length: usize,
    pub username_max_length: usize,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        Self {
            hash_pool_size: std::thread::available_parallelism().map_or(2, |n| n.get()),
            hash_queue_limit: None,
            password_min_length: 8,
            password_max_length: 128,
            sign_in_throttle_after: 5,
            sign_in_throttle_window: 900,
            sign_in_throttle_max_delay: 30,
            sign_in_hash_budget: None,
            username_min_length: 3,
            username_max_length: 30,
        }
    }
}

impl IdentityConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let mut config: Self = env.load()?;
        config.hash_pool_size = config.hash_pool_size.max(1);
        config.hash_queue_limit = Some(
            config
                .hash_queue_limit
                .unwrap_or(32 * config.hash_pool_size),
        );
        Ok(config)
    }

    pub fn hash_queue_limit(&self) -> usize {
        self.hash_queue_limit.unwrap_or(32 * self.hash_pool_size)
    }

    pub fn sign_in_hash_budget(&self) -> usize {
        self.sign_in_hash_budget
            .unwrap_or(self.hash_queue_limit() / 2)
            .max(1)
    }

    pub fn username_rules(&self) -> crate::username::UsernameRules {
        crate::username::UsernameRules {
            min_length: self.username_min_length,
            max_length: self.username_max_length,
        }
    }

    pub fn throttle_rules(&self) -> crate::email_password::throttle::ThrottleRules {
        crate::email_password::throttle::ThrottleRules {
            after: self.sign_in_throttle_after,
            window: std::time::Duration::from_secs(self.sign_in_throttle_window),
            max_delay: std::time::Duration::from_secs(self.sign_in_throttle_max_delay),
        }
    }
}
