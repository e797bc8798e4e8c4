//! `received_events`: every verified delivery, its body byte for byte, one row per `webhook-id`.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, Executor, query};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::BillingEventReceived;

/// A verified delivery about to be stored.
#[derive(Debug)]
pub struct NewEvent<'a> {
    pub id: &'a str,
    pub webhook_id: &'a str,
    pub event_type: &'a str,
    pub event_timestamp: Option<DateTime<Utc>>,
    pub api_version: Option<&'a str>,
    /// The organization it belongs to (its entity's `metadata.referenceId`).
    pub organization_id: Option<&'a str>,
    pub body: &'a [u8],
    pub received_at: DateTime<Utc>,
}

/// A stored delivery.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct ReceivedEvent {
    pub id: String,
    pub webhook_id: String,
    pub event_type: String,
    pub event_timestamp: Option<DateTime<Utc>>,
    pub api_version: Option<String>,
    pub body: Vec<u8>,
    pub received_at: DateTime<Utc>,
    /// The organization it belongs to (its entity's `metadata.referenceId`).
    pub organization_id: Option<String>,
}

/// Stores `event` unless its `webhook-id` is stored already, and with a new one its
/// `billing.event-received` in the outbox, atomically (on PostgreSQL in one statement: the
/// sender waits for this). Returns the id of the row that holds that `webhook-id` and whether
/// it was there before (a retry or a redelivery). Committed when it returns: the caller may
/// answer 2xx.
pub async fn insert(db: &Db, event: &NewEvent<'_>) -> Result<(String, bool), DbError> {
    let insert = query(
        "INSERT INTO received_events \
         (id, webhook_id, event_type, event_timestamp, api_version, body, received_at, \
         organization_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
         ON CONFLICT (webhook_id) DO NOTHING",
    )
    .bind(event.id)
    .bind(event.webhook_id)
    .bind(event.event_type)
    .bind(event.event_timestamp)
    .bind(event.api_version)
    .bind(event.body.to_vec())
    .bind(event.received_at)
    .bind(event.organization_id);
    let received = OutboxEvent::new(&BillingEventReceived {
        event_id: event.id.to_string(),
        event_type: event.event_type.to_string(),
    });
    if db.insert_with_event(insert, &received).await? {
        return Ok((event.id.to_string(), false));
    }
    let (id,): (String,) = query("SELECT id FROM received_events WHERE webhook_id = $1")
        .bind(event.webhook_id)
        .fetch_one(db)
        .await?;
    Ok((id, true))
}

/// Where a stored event came from.
pub mod origin {
    /// The payments platform, through the intake.
    pub const POLAR: &str = "polar";
    /// An owner's test event: sent to one endpoint, never projected or fanned out.
    pub const TEST: &str = "test";
}

/// Stores a test event for `organization_id` (no outbox message: only the delivery the caller
/// creates beside it sends it anywhere).
pub async fn insert_test(
    on: impl Executor,
    id: &str,
    event_type: &str,
    organization_id: &str,
    body: &[u8],
    at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "INSERT INTO received_events (id, webhook_id, event_type, event_timestamp, api_version, \
         body, received_at, organization_id, origin) \
         VALUES ($1, $2, $3, $4, NULL, $5, $4, $6, $7)",
    )
    .bind(id)
    .bind(format!("test_{id}"))
    .bind(event_type)
    .bind(at)
    .bind(body.to_vec())
    .bind(organization_id)
    .bind(origin::TEST)
    .execute(on)
    .await?;
    Ok(())
}

pub async fn find(on: impl Executor, id: &str) -> Result<Option<ReceivedEvent>, DbError> {
    query(
        "SELECT id, webhook_id, event_type, event_timestamp, api_version, body, received_at, \
         organization_id FROM received_events WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(on)
    .await
}

/// How many deliveries are stored.
pub async fn count(db: &Db) -> Result<i64, DbError> {
    let (count,): (i64,) = query("SELECT COUNT(*) FROM received_events")
        .fetch_one(db)
        .await?;
    Ok(count)
}
