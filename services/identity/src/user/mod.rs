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
