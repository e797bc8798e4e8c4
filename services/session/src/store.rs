//! The sessions table.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::outbox::{OutboxEvent, OutboxSignal};
use gatehouse_kit::{enqueue, with_db};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Session {
    pub id: String,
    pub token: String,
    pub user_id: String,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub ip_address: String,
    pub user_agent: String,
    pub remember_me: bool,
}

#[derive(Clone)]
pub struct SessionStore {
    db: Db,
    outbox: OutboxSignal,
}

impl SessionStore {
    pub fn new(db: Db, outbox: OutboxSignal) -> Self {
        Self { db, outbox }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    pub async fn insert(&self, session: &Session) -> Result<(), sqlx::Error> {
        with_db!(&self.db, pool => sqlx::query(
            "INSERT INTO sessions (id, token, user_id, expires_at, created_at, updated_at, ip_address, user_agent, remember_me) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&session.id)
        .bind(&session.token)
        .bind(&session.user_id)
        .bind(session.expires_at)
        .bind(session.created_at)
        .bind(session.updated_at)
        .bind(&session.ip_address)
        .bind(&session.user_agent)
        .bind(session.remember_me)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        Ok(())
    }

    pub async fn find_by_token(&self, token: &str) -> Result<Option<Session>, sqlx::Error> {
        with_db!(&self.db, pool => sqlx::query_as::<_, Session>(
            "SELECT id, token, user_id, expires_at, created_at, updated_at, ip_address, user_agent, remember_me \
             FROM sessions WHERE token = $1",
        )
        .bind(token)
        .fetch_optional(pool)
        .await)
    }

    /// Slides the expiry; `false` when the session no longer exists (revoked meanwhile).
    pub async fn extend(
        &self,
        token: &str,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, sqlx::Error> {
        let updated = with_db!(&self.db, pool => sqlx::query(
            "UPDATE sessions SET expires_at = $1, updated_at = $2 WHERE token = $3",
        )
        .bind(expires_at)
        .bind(now)
        .bind(token)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        Ok(updated > 0)
    }

    /// Deletes a session and records `session.revoked`; `false` when there was none.
    pub async fn revoke(&self, token: &str) -> Result<bool, sqlx::Error> {
        let deleted: Option<(String, String)> = with_db!(&self.db, pool => async {
            let mut tx = pool.begin().await?;
            let row: Option<(String, String)> = sqlx::query_as(
                "DELETE FROM sessions WHERE token = $1 RETURNING id, user_id",
            )
            .bind(token)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some((id, user_id)) = &row {
                let event = OutboxEvent::new(
                    "session.revoked",
                    &serde_json::json!({ "sessionId": id, "userId": user_id }),
                );
                enqueue!(&mut *tx, event)?;
            }
            tx.commit().await?;
            Ok::<_, sqlx::Error>(row)
        }.await)?;
        if deleted.is_some() {
            self.outbox.notify();
        }
        Ok(deleted.is_some())
    }

    /// Deletes one session without an event (it expired; nobody revoked it).
    pub async fn delete(&self, token: &str) -> Result<(), sqlx::Error> {
        with_db!(&self.db, pool => sqlx::query("DELETE FROM sessions WHERE token = $1")
            .bind(token)
            .execute(pool)
            .await
            .map(|done| done.rows_affected()))?;
        Ok(())
    }

    /// Removes sessions whose expiry has passed; returns how many.
    pub async fn delete_expired(&self, now: DateTime<Utc>) -> Result<u64, sqlx::Error> {
        with_db!(&self.db, pool => sqlx::query("DELETE FROM sessions WHERE expires_at < $1")
            .bind(now)
            .execute(pool)
            .await
            .map(|done| done.rows_affected()))
    }
}
