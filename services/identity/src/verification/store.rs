//! The `verifications` table.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, Tx, query};
use gatehouse_kit::ids;

use super::{Link, Purpose, token_hash};

/// A stored link, found by its token.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Found {
    pub id: String,
    /// [`Purpose::as_str`] of what the link was made for.
    pub purpose: String,
    pub user_id: String,
    /// The user's address when the link was made.
    pub email: String,
    pub new_email: Option<String>,
    pub expires_at: DateTime<Utc>,
}

impl Found {
    pub fn expired(&self) -> bool {
        self.expires_at <= ids::now()
    }
}

pub(super) async fn insert(tx: &mut Tx, link: &Link) -> Result<(), DbError> {
    query(
        "INSERT INTO verifications (id, token_hash, purpose, user_id, email, new_email, expires_at, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(link.id.as_str())
    .bind(link.token_hash.as_str())
    .bind(link.purpose.as_str())
    .bind(link.user_id.as_str())
    .bind(link.email.as_str())
    .bind(link.new_email.clone())
    .bind(link.expires_at)
    .bind(ids::now())
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The link with this token, expired or not, if it was made for one of `purposes`.
pub async fn find(db: &Db, token: &str, purposes: &[Purpose]) -> Result<Option<Found>, DbError> {
    let found: Option<Found> = query(
        "SELECT id, purpose, user_id, email, new_email, expires_at FROM verifications \
         WHERE token_hash = $1",
    )
    .bind(token_hash(token))
    .fetch_optional(db)
    .await?;
    Ok(found.filter(|f| purposes.iter().any(|p| p.as_str() == f.purpose)))
}

/// Uses up a link: `false` when another request used it first.
pub async fn consume(tx: &mut Tx, id: &str) -> Result<bool, DbError> {
    Ok(query("DELETE FROM verifications WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?
        == 1)
}

/// Drops the user's earlier links for `purpose` (a newer password reset replaces the older).
pub async fn delete_for_user(tx: &mut Tx, user_id: &str, purpose: Purpose) -> Result<(), DbError> {
    query("DELETE FROM verifications WHERE user_id = $1 AND purpose = $2")
        .bind(user_id)
        .bind(purpose.as_str())
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Forgets links that expired before `before` (they would only answer `TOKEN_EXPIRED`).
pub async fn delete_expired(db: &Db, before: DateTime<Utc>) -> Result<u64, DbError> {
    query("DELETE FROM verifications WHERE expires_at < $1")
        .bind(before)
        .execute(db)
        .await
}
