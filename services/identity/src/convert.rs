//! Domain types to and from the identity service's proto messages: the one place they meet.

use gatehouse_proto::identity::v1 as pb;

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
        }
    }
}
