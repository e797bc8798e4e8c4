//! The transactional outbox. A service inserts its events in the same transaction as the state
//! change that causes them ([`Tx::enqueue`](crate::db::Tx::enqueue)); the relay publishes
//! unpublished rows in order, with broker confirmation, and only then marks them published. A
//! broker outage delays events; it never loses them. Delivery is at-least-once: consumers
//! dedupe on `id`. The table is kit's (`migrations/*/9001_outbox.sql`), created in every
//! service's database with its own migrations.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::bus::{Bus, Message};
use crate::db::{Db, Query, query};
use crate::{ids, telemetry};

const BATCH: i64 = 100;
const IDLE_POLL: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
const RETENTION: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// An event about to be written to the outbox.
#[derive(Clone, Debug)]
pub struct OutboxEvent {
    pub id: String,
    pub topic: String,
    pub payload: String,
    pub headers: String,
    pub created_at: DateTime<Utc>,
}

impl OutboxEvent {
    /// Wraps `data` in the envelope `{id, type, occurredAt, data}` and captures the current
    /// trace context so the consumer's work joins this trace.
    pub fn new<T: Serialize>(topic: &str, data: &T) -> Self {
        let id = uuid::Uuid::now_v7().to_string();
        let created_at = ids::now();
        let envelope = serde_json::json!({
            "id": id,
            "type": topic,
            "occurredAt": ids::iso(created_at.timestamp_millis()),
            "data": data,
        });
        let headers = telemetry::current_context_headers();
        Self {
            id,
            topic: topic.to_string(),
            payload: envelope.to_string(),
            headers: serde_json::to_string(&headers).unwrap_or_else(|_| "{}".into()),
            created_at,
        }
    }
}

/// The statement that writes `event` (run by [`Tx::enqueue`](crate::db::Tx::enqueue)).
pub(crate) fn insert(event: &OutboxEvent) -> Query {
    query(
        "INSERT INTO outbox (id, topic, payload, headers, created_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(event.id.as_str())
    .bind(event.topic.as_str())
    .bind(event.payload.as_str())
    .bind(event.headers.as_str())
    .bind(event.created_at)
}

/// Wakes the relay right after a commit, so events go out without waiting for the poll.
#[derive(Clone, Debug, Default)]
pub struct OutboxSignal(Arc<Notify>);

impl OutboxSignal {
    pub fn notify(&self) {
        self.0.notify_one();
    }
}

#[derive(sqlx::FromRow)]
struct PendingRow {
    id: String,
    topic: String,
    payload: String,
    headers: String,
}

/// Starts the relay for one service's outbox; it stops when `shutdown` is cancelled.
pub fn spawn_relay(db: Db, bus: Bus, shutdown: CancellationToken) {
    let wake = db.outbox_signal().clone();
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(100);
        let mut last_cleanup = std::time::Instant::now();
        loop {
            match relay_batch(&db, &bus).await {
                Ok(published) if published == BATCH as usize => continue,
                Ok(_) => {
                    backoff = Duration::from_millis(100);
                    if last_cleanup.elapsed() > Duration::from_secs(3600) {
                        last_cleanup = std::time::Instant::now();
                        if let Err(error) = delete_old(&db).await {
                            tracing::warn!(%error, "outbox cleanup failed");
                        }
                    }
                    tokio::select! {
                        _ = wake.0.notified() => {}
                        _ = tokio::time::sleep(IDLE_POLL) => {}
                        _ = shutdown.cancelled() => break,
                    }
                }
                Err(error) => {
                    metrics::counter!("outbox_publish_failures_total").increment(1);
                    tracing::warn!(%error, retry_in_ms = backoff.as_millis() as u64, "outbox relay cannot publish; will retry");
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = shutdown.cancelled() => break,
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        tracing::debug!("outbox relay stopped");
    });
}

#[derive(Debug, thiserror::Error)]
enum RelayError {
    #[error("outbox read/write: {0}")]
    Db(#[from] crate::db::DbError),
    #[error("publish: {0}")]
    Bus(#[from] crate::bus::BusError),
}

async fn relay_batch(db: &Db, bus: &Bus) -> Result<usize, RelayError> {
    let rows: Vec<PendingRow> = query(
        "SELECT id, topic, payload, headers FROM outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1",
    )
    .bind(BATCH)
    .fetch_all(db)
    .await?;
    let count = rows.len();
    for row in rows {
        let headers: BTreeMap<String, String> =
            serde_json::from_str(&row.headers).unwrap_or_default();
        bus.publish(&Message {
            id: row.id.clone(),
            topic: row.topic.clone(),
            payload: row.payload,
            headers,
        })
        .await?;
        query("UPDATE outbox SET published_at = $1 WHERE id = $2")
            .bind(ids::now())
            .bind(row.id.as_str())
            .execute(db)
            .await?;
        metrics::counter!("outbox_published_total", "topic" => row.topic).increment(1);
    }
    Ok(count)
}

async fn delete_old(db: &Db) -> Result<(), crate::db::DbError> {
    let cutoff = ids::now() - RETENTION;
    query("DELETE FROM outbox WHERE published_at IS NOT NULL AND published_at < $1")
        .bind(cutoff)
        .execute(db)
        .await?;
    Ok(())
}

/// How many events wait to be published (for tests and health reporting).
pub async fn pending(db: &Db) -> Result<i64, crate::db::DbError> {
    let (count,): (i64,) = query("SELECT COUNT(*) FROM outbox WHERE published_at IS NULL")
        .fetch_one(db)
        .await?;
    Ok(count)
}
