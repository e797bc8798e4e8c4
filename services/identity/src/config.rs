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
    /// `ADMIN_USER_IDS`: users who pass every admin permission check (comma-separated).
    pub admin_user_ids: Vec<String>,
    /// `ADMIN_ROLES` (default `admin`): roles whose holders count as admins (impersonating one
    /// needs `user:impersonate-admins`).
    pub admin_roles: Vec<String>,
    /// `ADMIN_CUSTOM_ROLES`: more roles as JSON, `{"support": {"user": ["list", "get"]}}`.
    pub admin_custom_roles: Option<String>,
    /// `ADMIN_IMPERSONATION_DURATION` (default 3600): seconds an impersonation session lives.
    pub admin_impersonation_duration: u64,
    /// `ADMIN_ALLOW_IMPERSONATING_ADMINS` (default false).
    pub admin_allow_impersonating_admins: bool,
    /// `ADMIN_DEFAULT_BAN_REASON` (default "No reason").
    pub admin_default_ban_reason: String,
    /// `ADMIN_DEFAULT_BAN_EXPIRES_IN`: seconds a ban lasts when the admin gives no expiry
    /// (unset: until unbanned).
    pub admin_default_ban_expires_in: Option<u64>,
    /// `ADMIN_BANNED_USER_MESSAGE`: what a banned user is told at sign-in.
    pub admin_banned_user_message: String,
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
            admin_user_ids: Vec::new(),
            admin_roles: vec!["admin".into()],
            admin_custom_roles: None,
            admin_impersonation_duration: 3600,
            admin_allow_impersonating_admins: false,
            admin_default_ban_reason: "No reason".into(),
            admin_default_ban_expires_in: None,
            admin_banned_user_message: crate::email_password::BANNED_MESSAGE.into(),
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

    /// The admin plugin's settings; `ADMIN_CUSTOM_ROLES` must be valid JSON roles.
    pub fn admin_settings(&self) -> Result<crate::admin::AdminSettings, ConfigError> {
        let mut custom = std::collections::BTreeMap::new();
        if let Some(raw) = self
            .admin_custom_roles
            .as_deref()
            .filter(|r| !r.trim().is_empty())
        {
            let invalid = |reason: String| ConfigError::Invalid {
                name: "ADMIN_CUSTOM_ROLES".into(),
                value: raw.to_string(),
                reason,
            };
            let value: serde_json::Value =
                serde_json::from_str(raw).map_err(|e| invalid(e.to_string()))?;
            let roles = value
                .as_object()
                .ok_or_else(|| invalid("expected an object of roles".into()))?;
            for (name, statements) in roles {
                let role = gatehouse_kit::access::Role::from_json(statements)
                    .map_err(|e| invalid(format!("role {name}: {e}")))?;
                custom.insert(name.clone(), role);
            }
        }
        let ids = |list: &[String]| -> Vec<String> {
            list.iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        };
        Ok(crate::admin::AdminSettings {
            roles: crate::admin::Roles::new(
                custom,
                ids(&self.admin_user_ids),
                ids(&self.admin_roles),
            ),
            impersonation_lifetime: std::time::Duration::from_secs(
                self.admin_impersonation_duration,
            ),
            allow_impersonating_admins: self.admin_allow_impersonating_admins,
            default_ban_reason: self.admin_default_ban_reason.clone(),
            default_ban_expires_in: self
                .admin_default_ban_expires_in
                .map(std::time::Duration::from_secs),
        })
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
