//! The identity service's own settings (every one documented in the README). Its database and
//! listener come from kit's shared settings (`IDENTITY_DATABASE_URL`, `IDENTITY_LISTEN`).

use gatehouse_kit::config::{ConfigError, Env};

#[derive(Clone, Debug)]
pub struct IdentityConfig {
    /// `HASH_POOL_SIZE`: password hashes computed at once (default: the number of cores).
    /// Each argon2id hash holds 19 MiB while it runs.
    pub hash_pool_size: usize,
    /// `HASH_QUEUE_LIMIT`: sign-ins that may wait for a hashing thread (default 32 per
    /// thread); more are answered 503 at once instead of piling up past their timeouts.
    pub hash_queue_limit: usize,
    /// `PASSWORD_MIN_LENGTH` (default 8) and `PASSWORD_MAX_LENGTH` (default 128), in characters.
    pub password_min_length: usize,
    pub password_max_length: usize,
}

impl IdentityConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let hash_pool_size = env.parse("HASH_POOL_SIZE", cores)?.max(1);
        Ok(Self {
            hash_pool_size,
            hash_queue_limit: env.parse("HASH_QUEUE_LIMIT", 32 * hash_pool_size)?,
            password_min_length: env.parse("PASSWORD_MIN_LENGTH", 8)?,
            password_max_length: env.parse("PASSWORD_MAX_LENGTH", 128)?,
        })
    }
}
