//! The `user` capability: reading users (`gatehouse.identity.v1.UserService`). Other services
//! see users only through it.

pub mod grpc;
pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::base;

use crate::error::IdentityError;

/// A user as the identity service keeps it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: String,
    pub name: String,
    /// Trimmed and lower-cased.
    pub email: String,
    pub email_verified: bool,
    pub image: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Username plugin: normalised (lower-cased) and unique; the form the user typed.
    pub username: Option<String>,
    pub display_username: Option<String>,
    /// Admin plugin: one role or several, comma-separated.
    pub role: String,
    pub banned: bool,
    pub ban_reason: Option<String>,
    /// `None` while banned: until unbanned.
    pub ban_expires: Option<DateTime<Utc>>,
}

/// The role every new user gets (better-auth's `defaultRole`).
pub const DEFAULT_ROLE: &str = "user";

impl User {
    /// A new user as sign-up (or an admin) creates them: not verified, default role, unbanned.
    pub fn new(name: String, email: String, image: Option<String>, now: DateTime<Utc>) -> Self {
        Self {
            id: gatehouse_kit::ids::new_id(),
            name,
            email,
            email_verified: false,
            image,
            created_at: now,
            updated_at: now,
            username: None,
            display_username: None,
            role: DEFAULT_ROLE.to_string(),
            banned: false,
            ban_reason: None,
            ban_expires: None,
        }
    }
}

#[derive(Clone)]
pub struct Users {
    db: Db,
}

impl Users {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    pub async fn get(&self, id: &str) -> Result<User, IdentityError> {
        store::get(&self.db, id)
            .await?
            .ok_or_else(|| base::USER_NOT_FOUND.into())
    }
}
