//! The `social_states` table (sign-ins under way) and provider accounts.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, query};
use gatehouse_kit::ids;

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
) -> Result<bool, DbError> {
    let now = ids::now();
    let inserted = query(
        "INSERT INTO accounts (id, account_id, provider_id, user_id, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(ids::new_id())
    .bind(account_id)
    .bind(provider_id)
    .bind(user_id)
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
