//! Domain types to and from the identity service's proto messages: the one place they meet.

use gatehouse_proto::identity::v1 as pb;

use crate::account::Account;
use crate::user::User;

impl From<User> for pb::User {
    fn from(user: User) -> Self {
        pb::User {
            id: user.id,
            name: user.name,
            email: user.email,
            email_verified: user.email_verified,
            image: user.image,
            created_at_unix_ms: user.created_at.timestamp_millis(),
            updated_at_unix_ms: user.updated_at.timestamp_millis(),
            username: user.username,
            display_username: user.display_username,
            role: user.role,
            banned: user.banned,
            ban_reason: user.ban_reason,
            ban_expires_unix_ms: user.ban_expires.map(|t| t.timestamp_millis()),
            language: user.language,
            two_factor_enabled: user.two_factor_enabled,
        }
    }
}

impl From<Account> for pb::Account {
    fn from(account: Account) -> Self {
        pb::Account {
            scopes: account.scopes(),
            id: account.id,
            provider_id: account.provider_id,
            account_id: account.account_id,
            user_id: account.user_id,
            created_at_unix_ms: account.created_at.timestamp_millis(),
            updated_at_unix_ms: account.updated_at.timestamp_millis(),
        }
    }
}

impl From<crate::api_key::ApiKey> for pb::ApiKey {
    fn from(key: crate::api_key::ApiKey) -> Self {
        let ms = |t: chrono::DateTime<chrono::Utc>| t.timestamp_millis();
        pb::ApiKey {
            organization_owned: key.organization_owned(),
            id: key.id,
            config_id: key.config_id,
            name: key.name,
            start: key.start,
            reference_id: key.reference_id,
            prefix: key.prefix,
            refill_interval_ms: key.refill_interval,
            refill_amount: key.refill_amount,
            last_refill_at_unix_ms: key.last_refill_at.map(ms),
            enabled: key.enabled,
            rate_limit_enabled: key.rate_limit_enabled,
            rate_limit_time_window_ms: key.rate_limit_time_window,
            rate_limit_max: key.rate_limit_max,
            request_count: key.request_count,
            remaining: key.remaining,
            last_request_unix_ms: key.last_request.map(ms),
            expires_at_unix_ms: key.expires_at.map(ms),
            created_at_unix_ms: ms(key.created_at),
            updated_at_unix_ms: ms(key.updated_at),
            permissions_json: key.permissions,
            metadata_json: key.metadata,
        }
    }
}
