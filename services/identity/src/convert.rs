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
