//! The `social_states` table (sign-ins under way) and provider accounts.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, query};
use gatehouse_kit::ids;

use crate::account::store::{Account, StoredTokens};
use crate::user::User;
use crate::user_columns;

/// A sign-in under way, as stored (its `data` is the flow's JSON).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StoredState {
    pub provider_id: String,
    pub data: String,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert_state(
    db: &Db,
    state: &str,
    provider_id: &str,
    data: &str,
    expires_at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "INSERT INTO social_states (state_hash, provider_id, data, expires_at, created_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(ids::sha256_hex(state))
    .bind(provider_id)
    .bind(data)
    .bind(expires_at)
    .bind(ids::now())
    .execute(db)
    .await?;
    Ok(())
}

pub async fn find_state(db: &Db, state: &str) -> Result<Option<StoredState>, DbError> {
    query("SELECT provider_id, data, expires_at FROM social_states WHERE state_hash = $1")
        .bind(ids::sha256_hex(state))
        .fetch_optional(db)
        .await
}

/// Uses the state up: `false` when another callback used it first.
pub async fn delete_state(db: &Db, state: &str) -> Result<bool, DbError> {
    Ok(query("DELETE FROM social_states WHERE state_hash = $1")
        .bind(ids::sha256_hex(state))
        .execute(db)
        .await?
        == 1)
}

/// Forgets sign-ins abandoned before `before`.
pub async fn delete_expired_states(db: &Db, before: DateTime<Utc>) -> Result<u64, DbError> {
    query("DELETE FROM social_states WHERE expires_at < $1")
        .bind(before)
        .execute(db)
        .await
}

/// The owner of the provider's account `account_id`, if it is linked.
pub async fn owner_of(
    db: &Db,
    provider_id: &str,
    account_id: &str,
) -> Result<Option<User>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM accounts JOIN users ON users.id = accounts.user_id \
         WHERE accounts.provider_id = $1 AND accounts.account_id = $2"
    );
    query(SQL)
        .bind(provider_id)
        .bind(account_id)
        .fetch_optional(db)
        .await
}

/// Links the provider's account to an existing user; `false` when it is linked already (to
/// anyone: a concurrent callback won).
pub async fn link(
    db: &Db,
    user_id: &str,
    provider_id: &str,
    account_id: &str,
    tokens: &StoredTokens,
) -> Result<bool, DbError> {
    let now = ids::now();
    let inserted = query(
        "INSERT INTO accounts (id, account_id, provider_id, user_id, access_token, \
         refresh_token, id_token, access_token_expires_at, refresh_token_expires_at, scope, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(ids::new_id())
    .bind(account_id)
    .bind(provider_id)
    .bind(user_id)
    .bind(tokens.access_token.clone())
    .bind(tokens.refresh_token.clone())
    .bind(tokens.id_token.clone())
    .bind(tokens.access_token_expires_at)
    .bind(tokens.refresh_token_expires_at)
    .bind(tokens.scope.clone())
    .bind(now)
    .bind(now)
    .execute(db)
    .await;
    match inserted {
        Ok(_) => Ok(true),
        Err(DbError::UniqueViolation(_)) => Ok(false),
        Err(error) => Err(error),
    }
}

/// A sign-in's new tokens for an account already linked (better-auth's
/// `updateAccountOnSignIn`); what the provider did not send again stays.
pub async fn update_tokens(
    db: &Db,
    provider_id: &str,
    account_id: &str,
    tokens: &StoredTokens,
) -> Result<(), DbError> {
    query(
        "UPDATE accounts SET access_token = $1, refresh_token = COALESCE($2, refresh_token), \
         id_token = COALESCE($3, id_token), access_token_expires_at = $4, \
         refresh_token_expires_at = COALESCE($5, refresh_token_expires_at), \
         scope = COALESCE($6, scope), updated_at = $7 \
         WHERE provider_id = $8 AND account_id = $9",
    )
    .bind(tokens.access_token.clone())
    .bind(tokens.refresh_token.clone())
    .bind(tokens.id_token.clone())
    .bind(tokens.access_token_expires_at)
    .bind(tokens.refresh_token_expires_at)
    .bind(tokens.scope.clone())
    .bind(ids::now())
    .bind(provider_id)
    .bind(account_id)
    .execute(db)
    .await?;
    Ok(())
}

/// An account row with its (encrypted) tokens.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TokenRow {
    pub id: String,
    pub provider_id: String,
    pub account_id: String,
    pub user_id: String,
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
    pub id_token: Option<String>,
    pub access_token_expires_at: Option<DateTime<Utc>>,
    pub refresh_token_expires_at: Option<DateTime<Utc>>,
    pub scope: Option<String>,
    pub refreshing_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl TokenRow {
    /// The row without its secrets.
    pub fn account(&self) -> Account {
        Account {
            id: self.id.clone(),
            provider_id: self.provider_id.clone(),
            account_id: self.account_id.clone(),
            user_id: self.user_id.clone(),
            scope: self.scope.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// A [`TokenRow`]'s columns, for `concat!`.
macro_rules! token_columns {
    () => {
        "id, provider_id, account_id, user_id, access_token, refresh_token, id_token, \
         access_token_expires_at, refresh_token_expires_at, scope, refreshing_until, \
         created_at, updated_at"
    };
}

/// The user's accounts with their tokens, oldest first.
pub async fn token_rows(db: &Db, user_id: &str) -> Result<Vec<TokenRow>, DbError> {
    query(concat!(
        "SELECT ",
        token_columns!(),
        " FROM accounts WHERE user_id = $1 ORDER BY created_at, id"
    ))
    .bind(user_id)
    .fetch_all(db)
    .await
}

pub async fn token_row(db: &Db, id: &str) -> Result<Option<TokenRow>, DbError> {
    query(concat!(
        "SELECT ",
        token_columns!(),
        " FROM accounts WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(db)
    .await
}

/// Claims the account's refresh until `until`; `false` while another caller holds it.
pub async fn take_refresh_lease(
    db: &Db,
    id: &str,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, DbError> {
    Ok(query(
        "UPDATE accounts SET refreshing_until = $1 \
         WHERE id = $2 AND (refreshing_until IS NULL OR refreshing_until < $3)",
    )
    .bind(until)
    .bind(id)
    .bind(now)
    .execute(db)
    .await?
        == 1)
}

pub async fn release_refresh_lease(db: &Db, id: &str) -> Result<(), DbError> {
    query("UPDATE accounts SET refreshing_until = NULL WHERE id = $1")
        .bind(id)
        .execute(db)
        .await?;
    Ok(())
}

/// A refresh's tokens, written and the lease released in one statement (the scope stays:
/// a refresh may answer a narrower one).
pub async fn save_refreshed(db: &Db, id: &str, tokens: &StoredTokens) -> Result<(), DbError> {
    query(
        "UPDATE accounts SET access_token = $1, refresh_token = $2, id_token = $3, \
         access_token_expires_at = $4, refresh_token_expires_at = $5, refreshing_until = NULL, \
         updated_at = $6 WHERE id = $7",
    )
    .bind(tokens.access_token.clone())
    .bind(tokens.refresh_token.clone())
    .bind(tokens.id_token.clone())
    .bind(tokens.access_token_expires_at)
    .bind(tokens.refresh_token_expires_at)
    .bind(ids::now())
    .bind(id)
    .execute(db)
    .await?;
    Ok(())
}

/// Removes one of the user's accounts by its row id; with `keep_one`, only while they have
/// another (checked in the same statement, so two unlinks cannot take the last two).
pub async fn unlink(db: &Db, user_id: &str, id: &str, keep_one: bool) -> Result<bool, DbError> {
    let sql = if keep_one {
        "DELETE FROM accounts WHERE id = $1 AND user_id = $2 \
         AND (SELECT COUNT(*) FROM accounts WHERE user_id = $2) > 1"
    } else {
        "DELETE FROM accounts WHERE id = $1 AND user_id = $2"
    };
    Ok(query(sql).bind(id).bind(user_id).execute(db).await? == 1)
}
