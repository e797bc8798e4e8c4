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
}

impl Default for IdentityConfig {
    fn default() -> Self {
        Self {
            hash_pool_size: std::thread::available_parallelism().map_or(2, |n| n.get()),
            hash_queue_limit: None,
            password_min_length: 8,
            password_max_length: 128,
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
}
