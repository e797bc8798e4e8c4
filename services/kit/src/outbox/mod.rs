//! The transactional outbox. A service inserts its events in the same transaction as the state
//! change that causes them ([`Tx::enqueue`](crate::db::Tx::enqueue)); the relay publishes them
//! with broker confirmation and only then marks them published. A broker outage delays events;
//! it never loses them. Delivery is at-least-once: consumers dedupe on `id`.
//!
//! Several replicas of a service may run their relays at once: each claims a batch for a short
//! lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL), so no two publish the same row. A row the
//! broker refuses (unroutable, nacked) is retried with a growing delay and, after
//! [`RelayConfig::max_attempts`], parked, so it never blocks the rows behind it. The table is
//! kit's (`migrations/*/9001_outbox.sql`), created in every service's database.

pub(crate) mod event;

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use sea_query::{Alias, Expr};
use tokio_util::sync::CancellationToken;

use crate::bus::{Bus, BusError, Message};
use crate::db::{Backend, Db, DbError, query};
use crate::foreground::Foreground;
use crate::{ids, telemetry};

pub use event::{OutboxEvent, OutboxSignal};

const RETENTION: TimeDelta = TimeDelta::days(7);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

#[derive(Clone, Debug)]
pub struct RelayConfig {
    pub batch: i64,
    /// How long a claimed batch is this relay's; a relay that dies mid-batch releases its
    /// rows to the others after this.
    pub lease: Duration,
    /// The poll interval when nothing woke the relay.
    pub idle_poll: Duration,
    /// The first retry delay of a refused row; it doubles per attempt, up to `max_retry_delay`.
    pub retry_delay: Duration,
    pub max_retry_delay: Duration,
    /// Attempts before a refused row is parked.
    pub max_attempts: i64,
    /// The service's requests: while a burst of them is in flight, the relay claims one batch
    /// per `busy_pause` and leaves the rest in the outbox (durable there as in the broker),
    /// so that the cores and the database go to the requests first.
    pub yields_to: Option<Foreground>,
    pub busy_pause: Duration,
}

impl Default for RelayConfig {
    fn default() -> Self {
        Self {
            batch: 100,
            lease: Duration::from_secs(30),
            idle_poll: Duration::from_secs(1),
            retry_delay: Duration::from_secs(1),
            max_retry_delay: Duration::from_secs(300),
            max_attempts: 10,
            yields_to: None,
            busy_pause: Duration::from_millis(100),
        }
    }
}

#[derive(sqlx::FromRow)]
struct ClaimedRow {
    id: String,
    topic: String,
    payload: Vec<u8>,
    headers: String,
    attempts: i64,
    created_at: DateTime<Utc>,
}

#[derive(Debug, thiserror::Error)]
enum RelayError {
    #[error("outbox read/write: {0}")]
    Db(#[from] DbError),
    #[error("publish: {0}")]
    Bus(#[from] BusError),
}

fn delta(duration: Duration) -> TimeDelta {
    TimeDelta::from_std(duration).unwrap_or(TimeDelta::MAX)
}

/// Starts the relay for one service's outbox; it stops when `shutdown` is cancelled.
pub fn spawn_relay(db: Db, bus: Bus, config: RelayConfig, shutdown: CancellationToken) {
    let wake = db.outbox_signal().clone();
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(100);
        let mut last_cleanup = std::time::Instant::now();
        loop {
            if let Some(foreground) = &config.yields_to
                && foreground.busy()
            {
                // A burst may dip below its threshold between two requests: the pause is
                // not cut short by that, and costs at most one pause when the burst ends.
                tokio::select! {
                    () = tokio::time::sleep(config.busy_pause) => {}
                    _ = shutdown.cancelled() => break,
                }
            }
            match relay_batch(&db, &bus, &config).await {
                Ok(claimed) if claimed == config.batch as usize => continue,
                Ok(_) => {
                    backoff = Duration::from_millis(100);
                    if last_cleanup.elapsed() > Duration::from_secs(3600) {
                        last_cleanup = std::time::Instant::now();
                        if let Err(error) = delete_old(&db).await {
                            tracing::warn!(%error, "outbox cleanup failed");
                        }
                    }
                    tokio::select! {
                        _ = wake.notified() => {}
                        _ = tokio::time::sleep(config.idle_poll) => {}
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

/// Claims up to a batch of due rows for this relay, oldest first.
async fn claim(
    db: &Db,
    config: &RelayConfig,
    now: DateTime<Utc>,
) -> Result<Vec<ClaimedRow>, DbError> {
    // PostgreSQL: replicas skip the rows another relay is claiming. SQLite has one writer.
    let sql = match db.backend() {
        // `= ANY(ARRAY(…))`, not `IN (…)`: PostgreSQL plans `IN` as a hash join over a scan of
        // the whole table, published rows included (7.8 ms a claim with 34,000 rows kept,
        // growing with the table); an array is looked up by primary key (1.3 ms).
        Backend::Postgres => {
            "UPDATE outbox SET claimed_until = $1 WHERE id = ANY(ARRAY(SELECT id FROM outbox \
             WHERE published_at IS NULL AND parked_at IS NULL AND next_attempt_at <= $2 \
             AND (claimed_until IS NULL OR claimed_until < $2) \
             ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)) \
             RETURNING id, topic, payload, headers, attempts, created_at"
        }
        Backend::Sqlite => {
            "UPDATE outbox SET claimed_until = $1 WHERE id IN (SELECT id FROM outbox \
             WHERE published_at IS NULL AND parked_at IS NULL AND next_attempt_at <= $2 \
             AND (claimed_until IS NULL OR claimed_until < $2) \
             ORDER BY created_at, id LIMIT $3) \
             RETURNING id, topic, payload, headers, attempts, created_at"
        }
    };
    let mut rows: Vec<ClaimedRow> = query(sql)
        .bind(now + delta(config.lease))
        .bind(now)
        .bind(config.batch)
        .fetch_all(db)
        .await?;
    rows.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    Ok(rows)
}

async fn relay_batch(db: &Db, bus: &Bus, config: &RelayConfig) -> Result<usize, RelayError> {
    let claimed_at = std::time::Instant::now();
    let mut rows = claim(db, config, ids::now()).await?;
    let claimed = rows.len();
    if claimed == 0 {
        return Ok(0);
    }
    // Each publish is a producer span in the trace that enqueued the event, and the consumer's
    // span becomes its child: one trace from the request to every consumer. The spans stay
    // open until the batch is confirmed.
    let mut spans = Vec::with_capacity(claimed);
    let mut messages = Vec::with_capacity(claimed);
    for row in &mut rows {
        let stored: BTreeMap<String, String> =
            serde_json::from_str(&row.headers).unwrap_or_default();
        let span = tracing::info_span!(
            "publish",
            otel.kind = "producer",
            messaging.destination.name = %row.topic,
            messaging.message.id = %row.id,
        );
        telemetry::set_parent_from_map(&span, &stored);
        let headers = if telemetry::exporting() {
            span.in_scope(telemetry::current_context_headers)
        } else {
            stored
        };
        messages.push(Message {
            id: row.id.clone(),
            topic: row.topic.clone(),
            // Moved, not copied: the row needs only its id, topic and attempts from here on.
            payload: std::mem::take(&mut row.payload),
            headers,
        });
        spans.push(span);
    }
    // One batch: sent together, confirmed together, marked published in one statement.
    let published = bus.publish_all(&messages).await;
    drop(spans);
    let settled = published.settled.len();
    let mut done = Vec::with_capacity(settled);
    for (row, outcome) in rows.iter().zip(published.settled) {
        match outcome {
            Ok(()) => {
                metrics::counter!("outbox_published_total", "topic" => row.topic.clone())
                    .increment(1);
                done.push(row.id.as_str());
            }
            Err(error) => refuse(db, config, &row.id, &row.topic, row.attempts + 1, &error).await?,
        }
    }
    mark_published(db, &done).await?;
    if let Some(error) = published.broken {
        // The broker is unreachable: every unconfirmed row waits, none is counted.
        let rest: Vec<String> = rows[settled..].iter().map(|row| row.id.clone()).collect();
        release(db, &rest).await?;
        return Err(error.into());
    }
    if claimed_at.elapsed() > config.lease / 2 {
        // Slower than the lease allows: another relay may have claimed these rows meanwhile,
        // and published them again (consumers drop the duplicates). Worth a word in the log.
        tracing::warn!(
            rows = claimed,
            elapsed_ms = claimed_at.elapsed().as_millis() as u64,
            "outbox batch took past half its lease"
        );
    }
    Ok(claimed)
}

/// Marks the rows published, in one statement.
async fn mark_published(db: &Db, ids: &[&str]) -> Result<(), DbError> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut statement = sea_query::Query::update();
    statement
        .table(Alias::new("outbox"))
        .value(Alias::new("published_at"), ids::now())
        .value(Alias::new("claimed_until"), Option::<DateTime<Utc>>::None)
        .and_where(sea_query::ExprTrait::is_in(
            Expr::col(Alias::new("id")),
            ids.iter().copied(),
        ));
    db.build(&statement).execute(db).await?;
    Ok(())
}

/// Counts a refusal against the row: retried later, or parked after the last attempt.
async fn refuse(
    db: &Db,
    config: &RelayConfig,
    id: &str,
    topic: &str,
    attempts: i64,
    error: &BusError,
) -> Result<(), DbError> {
    let now = ids::now();
    let exponent = u32::try_from(attempts.saturating_sub(1).min(20)).unwrap_or(20);
    let delay = config
        .retry_delay
        .saturating_mul(2u32.saturating_pow(exponent))
        .min(config.max_retry_delay);
    let parked = attempts >= config.max_attempts;
    query(
        "UPDATE outbox SET attempts = $1, last_error = $2, next_attempt_at = $3, \
         claimed_until = NULL, parked_at = $4 WHERE id = $5",
    )
    .bind(attempts)
    .bind(error.to_string())
    .bind(now + delta(delay))
    .bind(parked.then_some(now))
    .bind(id)
    .execute(db)
    .await?;
    if parked {
        metrics::counter!("outbox_parked_total", "topic" => topic.to_string()).increment(1);
        tracing::error!(event_id = id, topic, attempts, %error, "outbox event parked after its last attempt");
    } else {
        tracing::warn!(event_id = id, topic, attempts, %error, "outbox event refused; will retry");
    }
    Ok(())
}

async fn release(db: &Db, ids: &[String]) -> Result<(), DbError> {
    for id in ids {
        query("UPDATE outbox SET claimed_until = NULL WHERE id = $1")
            .bind(id.as_str())
            .execute(db)
            .await?;
    }
    Ok(())
}

/// Drops published outbox rows and inbox entries older than the retention.
async fn delete_old(db: &Db) -> Result<(), DbError> {
    let cutoff = ids::now() - RETENTION;
    query("DELETE FROM outbox WHERE published_at IS NOT NULL AND published_at < $1")
        .bind(cutoff)
        .execute(db)
        .await?;
    query("DELETE FROM inbox WHERE received_at < $1")
        .bind(cutoff)
        .execute(db)
        .await?;
    Ok(())
}

/// How many events wait to be published (parked ones excluded).
pub async fn pending(db: &Db) -> Result<i64, DbError> {
    let (count,): (i64,) =
        query("SELECT COUNT(*) FROM outbox WHERE published_at IS NULL AND parked_at IS NULL")
            .fetch_one(db)
            .await?;
    Ok(count)
}

/// How many events were parked after their last attempt.
pub async fn parked(db: &Db) -> Result<i64, DbError> {
    let (count,): (i64,) = query("SELECT COUNT(*) FROM outbox WHERE parked_at IS NOT NULL")
        .fetch_one(db)
        .await?;
    Ok(count)
}
