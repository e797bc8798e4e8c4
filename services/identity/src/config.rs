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
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub admin_allow_impersonating_admins: bool,
    /// `ADMIN_DEFAULT_BAN_REASON` (default "No reason").
    pub admin_default_ban_reason: String,
    /// `ADMIN_DEFAULT_BAN_EXPIRES_IN`: seconds a ban lasts when the admin gives no expiry
    /// (unset: until unbanned).
    pub admin_default_ban_expires_in: Option<u64>,
    /// `ADMIN_BANNED_USER_MESSAGE`: what a banned user is told at sign-in.
    pub admin_banned_user_message: String,
    /// `REQUIRE_EMAIL_VERIFICATION` (default false): sign-in is refused with
    /// `EMAIL_NOT_VERIFIED` (and a verification mail sent) until the address is verified, and
    /// sign-up answers without a session.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub require_email_verification: bool,
    /// `EMAIL_VERIFICATION_ON_SIGN_UP` (default: `REQUIRE_EMAIL_VERIFICATION`): sign-up mails a
    /// verification link.
    #[serde(deserialize_with = "gatehouse_kit::config::optional_flag")]
    pub email_verification_on_sign_up: Option<bool>,
    /// `EMAIL_VERIFICATION_AUTO_SIGN_IN` (default false): a verification link opened in a
    /// signed-out browser signs it in.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub email_verification_auto_sign_in: bool,
    /// `EMAIL_VERIFICATION_EXPIRES_IN` (default 3600): seconds a verification link works.
    pub email_verification_expires_in: u64,
    /// `CHANGE_EMAIL_ENABLED` (default true): users may change their address
    /// (`POST /change-email`).
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub change_email_enabled: bool,
    /// `DELETE_USER_ENABLED` (default true): users may delete their own account.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub delete_user_enabled: bool,
    /// `DELETE_USER_VERIFY_BY_MAIL` (default false): deletion waits for a link mailed to the
    /// user, which works `DELETE_USER_TOKEN_EXPIRES_IN` seconds (default 86400).
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub delete_user_verify_by_mail: bool,
    pub delete_user_token_expires_in: u64,
    /// `RESET_PASSWORD_EXPIRES_IN` (default 3600): seconds a password-reset link works.
    pub reset_password_expires_in: u64,
    /// `RESET_PASSWORD_REVOKE_SESSIONS` (default false): a reset ends every session of the user.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub reset_password_revoke_sessions: bool,
    /// `RESET_PASSWORD_PAGE` (default `/reset-password/`): where a reset link sends the user
    /// when the request named no `redirectTo` (the web app's page).
    pub reset_password_page: String,
    /// `API_KEY_RATE_LIMIT_ENABLED` (default true), `API_KEY_RATE_LIMIT_WINDOW_MS` (default
    /// 60000) and `API_KEY_RATE_LIMIT_MAX` (default 600): a new API key's rate limit unless the
    /// server sets another. better-auth's 10 a day stops a working script by mid-morning.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub api_key_rate_limit_enabled: bool,
    pub api_key_rate_limit_window_ms: i64,
    pub api_key_rate_limit_max: i64,
    /// `API_KEY_METADATA` (default true): owners may attach JSON metadata to their keys.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub api_key_metadata: bool,
    /// `NEW_DEVICE_MAIL` (default true): a sign-in from a device (browser and system) the user
    /// had not signed in from before mails them, naming the device and its address.
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub new_device_mail: bool,
    /// `TWO_FACTOR_ISSUER` (default `Gatehouse`): the name authenticator apps show for the
    /// account.
    pub two_factor_issuer: String,
    /// `TWO_FACTOR_CHALLENGE_EXPIRES_IN` (default 600): seconds a sign-in waits for its
    /// second factor (the two-factor cookie's lifetime).
    pub two_factor_challenge_expires_in: u64,
    /// `TWO_FACTOR_TRUST_DEVICE_MAX_AGE` (default 2592000, 30 days): seconds a trusted browser
    /// skips the second factor, renewed at each sign-in.
    pub two_factor_trust_device_max_age: u64,
    /// `TWO_FACTOR_OTP_EXPIRES_IN` (default 180): seconds a mailed code works.
    pub two_factor_otp_expires_in: u64,
    /// `TWO_FACTOR_ALLOWED_ATTEMPTS` (default 5): wrong codes a pending sign-in (or a mailed
    /// code) takes before it is used up.
    pub two_factor_allowed_attempts: u32,
    /// `TWO_FACTOR_THROTTLE_AFTER` (default 5), `TWO_FACTOR_THROTTLE_WINDOW` (default 86400 s)
    /// and `TWO_FACTOR_THROTTLE_MAX_DELAY` (default 900 s): wrong second-factor codes for one
    /// account allowed within the window before each further one makes the next guess wait,
    /// 1 s doubling up to the maximum.
    pub two_factor_throttle_after: u64,
    pub two_factor_throttle_window: u64,
    pub two_factor_throttle_max_delay: u64,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        // The lengths' defaults are kit's, which the gateway documents.
        let lengths = gatehouse_kit::config::CredentialRules::default();
        let defaults = crate::api_key::Settings::default();
        let two_factor = crate::two_factor::Settings::default();
        Self {
            hash_pool_size: std::thread::available_parallelism().map_or(2, |n| n.get()),
            hash_queue_limit: None,
            password_min_length: lengths.password_min_length,
            password_max_length: lengths.password_max_length,
            sign_in_throttle_after: 5,
            sign_in_throttle_window: 900,
            sign_in_throttle_max_delay: 30,
            sign_in_hash_budget: None,
            username_min_length: lengths.username_min_length,
            username_max_length: lengths.username_max_length,
            admin_user_ids: Vec::new(),
            admin_roles: vec!["admin".into()],
            admin_custom_roles: None,
            admin_impersonation_duration: 3600,
            admin_allow_impersonating_admins: false,
            admin_default_ban_reason: "No reason".into(),
            admin_default_ban_expires_in: None,
            admin_banned_user_message: crate::email_password::BANNED_MESSAGE.into(),
            require_email_verification: false,
            email_verification_on_sign_up: None,
            email_verification_auto_sign_in: false,
            email_verification_expires_in: 3600,
            change_email_enabled: true,
            delete_user_enabled: true,
            delete_user_verify_by_mail: false,
            delete_user_token_expires_in: 86_400,
            reset_password_expires_in: 3600,
            reset_password_revoke_sessions: false,
            reset_password_page: "/reset-password/".into(),
            api_key_rate_limit_enabled: defaults.rate_limit_enabled,
            api_key_rate_limit_window_ms: defaults.rate_limit_window_ms,
            api_key_rate_limit_max: defaults.rate_limit_max,
            api_key_metadata: defaults.metadata,
            new_device_mail: true,
            two_factor_issuer: two_factor.issuer,
            two_factor_challenge_expires_in: two_factor.challenge_lifetime.as_secs(),
            two_factor_trust_device_max_age: two_factor.trust_device_lifetime.as_secs(),
            two_factor_otp_expires_in: two_factor.otp_lifetime.as_secs(),
            two_factor_allowed_attempts: two_factor.allowed_attempts as u32,
            two_factor_throttle_after: crate::two_factor::THROTTLE.after,
            two_factor_throttle_window: crate::two_factor::THROTTLE.window.as_secs(),
            two_factor_throttle_max_delay: crate::two_factor::THROTTLE.max_delay.as_secs(),
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

    pub fn api_key_settings(&self) -> crate::api_key::Settings {
        crate::api_key::Settings {
            rate_limit_enabled: self.api_key_rate_limit_enabled,
            rate_limit_window_ms: self.api_key_rate_limit_window_ms.max(1),
            rate_limit_max: self.api_key_rate_limit_max.max(1),
            metadata: self.api_key_metadata,
            ..Default::default()
        }
    }

    pub fn two_factor_throttle_rules(&self) -> crate::email_password::throttle::ThrottleRules {
        use std::time::Duration;
        crate::email_password::throttle::ThrottleRules {
            after: self.two_factor_throttle_after,
            window: Duration::from_secs(self.two_factor_throttle_window.max(1)),
            max_delay: Duration::from_secs(self.two_factor_throttle_max_delay.max(1)),
        }
    }

    pub fn two_factor_settings(&self) -> crate::two_factor::Settings {
        use std::time::Duration;
        crate::two_factor::Settings {
            issuer: self.two_factor_issuer.clone(),
            challenge_lifetime: Duration::from_secs(self.two_factor_challenge_expires_in.max(1)),
            trust_device_lifetime: Duration::from_secs(self.two_factor_trust_device_max_age.max(1)),
            otp_lifetime: Duration::from_secs(self.two_factor_otp_expires_in.max(1)),
            allowed_attempts: self.two_factor_allowed_attempts.clamp(1, 1000) as i32,
        }
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
            custom = gatehouse_kit::access::roles_from_json(raw).map_err(|reason| {
                ConfigError::Invalid {
                    name: "ADMIN_CUSTOM_ROLES".into(),
                    value: raw.to_string(),
                    reason,
                }
            })?;
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

    pub fn verification_settings(&self) -> crate::email_verification::Settings {
        crate::email_verification::Settings {
            required: self.require_email_verification,
            on_sign_up: self
                .email_verification_on_sign_up
                .unwrap_or(self.require_email_verification),
            auto_sign_in: self.email_verification_auto_sign_in,
            lifetime: std::time::Duration::from_secs(self.email_verification_expires_in),
            change_email: self.change_email_enabled,
        }
    }

    pub fn delete_settings(&self) -> crate::account::DeleteSettings {
        crate::account::DeleteSettings {
            enabled: self.delete_user_enabled,
            verify_by_mail: self.delete_user_verify_by_mail,
            lifetime: std::time::Duration::from_secs(self.delete_user_token_expires_in),
        }
    }

    pub fn reset_settings(&self) -> crate::password_reset::Settings {
        crate::password_reset::Settings {
            lifetime: std::time::Duration::from_secs(self.reset_password_expires_in),
            revoke_sessions: self.reset_password_revoke_sessions,
            default_page: self.reset_password_page.clone(),
        }
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
