//! A user's own account rows: profile changes (with their `user.updated` event) and the list
//! of sign-in methods.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::SimpleExpr;
use gatehouse_kit::db::{Db, DbError, query};
use gatehouse_kit::ids;

use crate::email_password::store::CREDENTIAL_PROVIDER;
use crate::user::User;

/// The profile fields a change sets (`None`: left as it is).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileChanges {
    pub name: Option<String>,
    /// `Some(None)` removes the image.
    pub image: Option<Option<String>>,
    /// Already checked and normalised.
    pub username: Option<String>,
    pub display_username: Option<String>,
    /// Already checked.
    pub language: Option<i32>,
}

impl ProfileChanges {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A sign-in method, without its secrets.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Account {
    pub id: String,
    pub provider_id: String,
    pub account_id: String,
    pub user_id: String,
    /// A provider account's granted scopes, comma-separated (better-auth's form).
    pub scope: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Account {
    /// The granted scopes (none for a credential account).
    pub fn scopes(&self) -> Vec<String> {
        self.scope
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    }
}

/// A provider account's token columns, each secret already encrypted
/// ([`crate::social::tokens`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredTokens {
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
    pub id_token: Option<String>,
    pub access_token_expires_at: Option<DateTime<Utc>>,
    pub refresh_token_expires_at: Option<DateTime<Utc>>,
    pub scope: Option<String>,
}

/// Applies `changes` and records `user.updated` in the same transaction; `None` when the user
/// does not exist.
pub async fn update_profile(
    db: &Db,
    user_id: &str,
    changes: ProfileChanges,
) -> Result<Option<User>, DbError> {
    let mut columns: Vec<(&'static str, SimpleExpr)> = Vec::new();
    if let Some(name) = changes.name {
        columns.push(("name", name.into()));
    }
    if let Some(image) = changes.image {
        columns.push(("image", image.into()));
    }
    if let Some(username) = changes.username {
        columns.push(("username", username.into()));
    }
    if let Some(display_username) = changes.display_username {
        columns.push(("display_username", display_username.into()));
    }
    if let Some(language) = changes.language {
        columns.push(("language", language.into()));
    }
    crate::user::store::update(db, user_id, columns, None).await
}

/// The user's sign-in methods, oldest first.
pub async fn list(db: &Db, user_id: &str) -> Result<Vec<Account>, DbError> {
    query(
        "SELECT id, provider_id, account_id, user_id, scope, created_at, updated_at \
         FROM accounts WHERE user_id = $1 ORDER BY created_at, id",
    )
    .bind(user_id)
    .fetch_all(db)
    .await
}

/// One of the user's accounts by its row id.
pub async fn find(db: &Db, user_id: &str, id: &str) -> Result<Option<Account>, DbError> {
    query(
        "SELECT id, provider_id, account_id, user_id, scope, created_at, updated_at \
         FROM accounts WHERE id = $1 AND user_id = $2",
    )
    .bind(id)
    .bind(user_id)
    .fetch_optional(db)
    .await
}

/// Gives a user without one a credential account holding `password_hash`.
pub async fn add_credential(db: &Db, user_id: &str, password_hash: &str) -> Result<(), DbError> {
    let now = ids::now();
    query(
        "INSERT INTO accounts (id, account_id, provider_id, user_id, password, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(ids::new_id())
    .bind(user_id)
    .bind(CREDENTIAL_PROVIDER)
    .bind(user_id)
    .bind(password_hash)
    .bind(now)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}
