//! The `signing_keys` table: a handful of rows, read whole.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, query};

/// A key record as stored: the private key still encrypted.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct KeyRecord {
    pub id: String,
    /// The public JWK, JSON text.
    pub public_key: String,
    /// PKCS#8 DER, base64, encrypted at rest (the vault's `$gh$…` form).
    pub private_key: String,
    pub alg: String,
    pub crv: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub generation: i64,
}

/// Every record, newest generation first.
pub async fn all(db: &Db) -> Result<Vec<KeyRecord>, DbError> {
    query(
        "SELECT id, public_key, private_key, alg, crv, created_at, expires_at, generation \
         FROM signing_keys ORDER BY generation DESC",
    )
    .fetch_all(db)
    .await
}

/// Inserts a record; a unique violation of `generation` means another replica minted this
/// generation first ([`is_taken`]).
pub async fn insert(db: &Db, record: &KeyRecord) -> Result<(), DbError> {
    query(
        "INSERT INTO signing_keys (id, public_key, private_key, alg, crv, created_at, expires_at, generation) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(record.id.as_str())
    .bind(record.public_key.as_str())
    .bind(record.private_key.as_str())
    .bind(record.alg.as_str())
    .bind(record.crv.clone())
    .bind(record.created_at)
    .bind(record.expires_at)
    .bind(record.generation)
    .execute(db)
    .await?;
    Ok(())
}

/// Whether an insert failed because its generation was taken.
pub fn is_taken(error: &DbError) -> bool {
    error.is_unique_violation_of("generation")
}

/// Deletes the records that stopped signing before `before` (no token of theirs is still
/// valid, and their grace period is over).
pub async fn delete_expired(db: &Db, before: DateTime<Utc>) -> Result<u64, DbError> {
    query("DELETE FROM signing_keys WHERE expires_at < $1")
        .bind(before)
        .execute(db)
        .await
}
