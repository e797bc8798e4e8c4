//! `deliveries` (one stored event for one endpoint) and `delivery_attempts` (each HTTP try).

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Executor, query};

/// Where a delivery stands.
pub mod status {
    /// Attempts are still owed.
    pub const PENDING: &str = "pending";
    pub const DELIVERED: &str = "delivered";
    /// Every scheduled attempt failed.
    pub const FAILED: &str = "failed";
    /// The endpoint was disabled or removed before it was delivered.
    pub const SKIPPED: &str = "skipped";
    pub const ALL: [&str; 4] = [PENDING, DELIVERED, FAILED, SKIPPED];
}

/// A delivery with what its attempts send: the stored event's body, byte for byte.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Due {
    pub id: String,
    pub event_id: String,
    pub endpoint_id: String,
    pub status: String,
    pub attempts: i32,
    pub body: Vec<u8>,
    /// When a replay's manual attempt is owed (claimed: until when); `None`: none is.
    pub replay_at: Option<DateTime<Utc>>,
}

/// An attempt owed to an endpoint: a pending delivery's next scheduled one, or a replay's
/// manual one.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Owed {
    pub id: String,
    pub attempts: i32,
    pub endpoint_id: String,
    pub manual: bool,
}

/// A new pending delivery of `event_id` to `endpoint_id`, its first attempt already claimed
/// until `claimed_until` (its message is sent with it); `false` when there is one already
/// (the fan-out ran twice for the event).
pub async fn insert(
    on: impl Executor,
    id: &str,
    event_id: &str,
    endpoint_id: &str,
    now: DateTime<Utc>,
    claimed_until: DateTime<Utc>,
) -> Result<bool, DbError> {
    let inserted = query(
        "INSERT INTO deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, \
         created_at) VALUES ($1, $2, $3, $4, 0, $6, $5) \
         ON CONFLICT (event_id, endpoint_id) DO NOTHING",
    )
    .bind(id)
    .bind(event_id)
    .bind(endpoint_id)
    .bind(status::PENDING)
    .bind(now)
    .bind(claimed_until)
    .execute(on)
    .await?;
    Ok(inserted > 0)
}

/// The attempts due at `now` — pending deliveries' scheduled ones and replays' — at most
/// `per_endpoint` of each endpoint, each endpoint's soonest first and then its next (so
/// endpoints with a backlog, and no room for it, cannot fill the batch and hide another's one
/// due retry).
pub async fn due_by(
    on: impl Executor,
    now: DateTime<Utc>,
    per_endpoint: i64,
    limit: i64,
) -> Result<Vec<Owed>, DbError> {
    query(
        "SELECT id, attempts, endpoint_id, manual FROM ( \
           SELECT id, attempts, endpoint_id, manual, due_at, ROW_NUMBER() OVER \
             (PARTITION BY endpoint_id ORDER BY due_at, id) AS nth FROM ( \
             SELECT id, attempts, endpoint_id, FALSE AS manual, next_attempt_at AS due_at \
             FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 \
             UNION ALL \
             SELECT id, attempts, endpoint_id, TRUE AS manual, replay_at AS due_at \
             FROM deliveries WHERE replay_at <= $1 \
           ) owed \
         ) due WHERE nth <= $2 ORDER BY nth, due_at, id LIMIT $3",
    )
    .bind(now)
    .bind(per_endpoint)
    .bind(limit)
    .fetch_all(on)
    .await
}

/// `endpoint_id`'s attempts due at `now`, soonest first, at most `limit`.
pub async fn due_of(
    on: impl Executor,
    endpoint_id: &str,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Owed>, DbError> {
    query(
        "SELECT id, attempts, endpoint_id, manual FROM ( \
           SELECT id, attempts, endpoint_id, FALSE AS manual, next_attempt_at AS due_at \
           FROM deliveries \
           WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= $2 \
           UNION ALL \
           SELECT id, attempts, endpoint_id, TRUE AS manual, replay_at AS due_at \
           FROM deliveries WHERE endpoint_id = $1 AND replay_at <= $2 \
         ) owed ORDER BY due_at, id LIMIT $3",
    )
    .bind(endpoint_id)
    .bind(now)
    .bind(limit)
    .fetch_all(on)
    .await
}

/// Claims a due delivery's next attempt until `until`; `false` when another scheduler did, or
/// it is no longer due. Only the claimant sends the attempt's message.
pub async fn claim(
    on: impl Executor,
    id: &str,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, DbError> {
    let claimed = query(
        "UPDATE deliveries SET next_attempt_at = $3 \
         WHERE id = $1 AND status = 'pending' AND next_attempt_at <= $2",
    )
    .bind(id)
    .bind(now)
    .bind(until)
    .execute(on)
    .await?;
    Ok(claimed > 0)
}

/// Claims a replay's manual attempt until `until`; `false` when another scheduler did, or it
/// is no longer due.
pub async fn claim_replay(
    on: impl Executor,
    id: &str,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, DbError> {
    let claimed = query("UPDATE deliveries SET replay_at = $3 WHERE id = $1 AND replay_at <= $2")
        .bind(id)
        .bind(now)
        .bind(until)
        .execute(on)
        .await?;
    Ok(claimed > 0)
}

/// Owes `id` a replay, due at `now`, unless one is owed already (asking twice before it is
/// sent sends it once).
pub async fn request_replay(
    on: impl Executor,
    id: &str,
    now: DateTime<Utc>,
) -> Result<(), DbError> {
    query("UPDATE deliveries SET replay_at = $2 WHERE id = $1 AND replay_at IS NULL")
        .bind(id)
        .bind(now)
        .execute(on)
        .await?;
    Ok(())
}

/// Puts a replay off until `until` (its endpoint was busy), if it is still owed.
pub async fn put_off_replay(
    on: impl Executor,
    id: &str,
    until: DateTime<Utc>,
) -> Result<(), DbError> {
    query("UPDATE deliveries SET replay_at = $2 WHERE id = $1 AND replay_at IS NOT NULL")
        .bind(id)
        .bind(until)
        .execute(on)
        .await?;
    Ok(())
}

/// Owes `id` no replay any more (its endpoint was disabled: nothing is sent).
pub async fn drop_replay(on: impl Executor, id: &str) -> Result<(), DbError> {
    query("UPDATE deliveries SET replay_at = NULL WHERE id = $1")
        .bind(id)
        .execute(on)
        .await?;
    Ok(())
}

pub async fn due(on: impl Executor, id: &str) -> Result<Option<Due>, DbError> {
    query(
        "SELECT d.id, d.event_id, d.endpoint_id, d.status, d.attempts, e.body, d.replay_at \
         FROM deliveries d JOIN received_events e ON e.id = d.event_id WHERE d.id = $1",
    )
    .bind(id)
    .fetch_optional(on)
    .await
}

/// One HTTP attempt as it went.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Attempt {
    pub id: String,
    pub delivery_id: String,
    pub endpoint_id: String,
    /// `scheduled` or `manual`.
    pub trigger: String,
    pub started_at: DateTime<Utc>,
    pub duration_ms: i64,
    pub response_status: Option<i32>,
    pub response_body: Option<String>,
    pub error: Option<String>,
    pub succeeded: bool,
}

pub async fn record_attempt(on: impl Executor, attempt: &Attempt) -> Result<(), DbError> {
    query(
        "INSERT INTO delivery_attempts (id, delivery_id, endpoint_id, trigger, started_at, \
         duration_ms, response_status, response_body, error, succeeded) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(attempt.id.as_str())
    .bind(attempt.delivery_id.as_str())
    .bind(attempt.endpoint_id.as_str())
    .bind(attempt.trigger.as_str())
    .bind(attempt.started_at)
    .bind(attempt.duration_ms)
    .bind(attempt.response_status)
    .bind(attempt.response_body.as_deref())
    .bind(attempt.error.as_deref())
    .bind(attempt.succeeded)
    .execute(on)
    .await?;
    Ok(())
}

/// After a scheduled attempt: one more attempt, the delivery's status, and when the next is
/// due. Only a delivery still pending is settled: a duplicate of its message, or a replay,
/// that ran alongside cannot move a delivered one back.
pub async fn settle(
    on: impl Executor,
    id: &str,
    status: &str,
    attempted_at: DateTime<Utc>,
    next_attempt_at: Option<DateTime<Utc>>,
) -> Result<(), DbError> {
    query(
        "UPDATE deliveries SET status = $2, attempts = attempts + 1, last_attempt_at = $3, \
         next_attempt_at = $4 WHERE id = $1 AND status = 'pending'",
    )
    .bind(id)
    .bind(status)
    .bind(attempted_at)
    .bind(next_attempt_at)
    .execute(on)
    .await?;
    Ok(())
}

/// After a manual attempt (a replay): one more attempt, and no replay owed; a success makes
/// the delivery `delivered` with nothing more due, a failure leaves its status and schedule as
/// they are now (a scheduled attempt may have settled it meanwhile; its next retry may still
/// be queued).
pub async fn settle_manual(
    on: impl Executor,
    id: &str,
    succeeded: bool,
    attempted_at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "UPDATE deliveries SET attempts = attempts + 1, last_attempt_at = $2, replay_at = NULL, \
         status = CASE WHEN $3 THEN 'delivered' ELSE status END, \
         next_attempt_at = CASE WHEN $3 THEN NULL ELSE next_attempt_at END WHERE id = $1",
    )
    .bind(id)
    .bind(attempted_at)
    .bind(succeeded)
    .execute(on)
    .await?;
    Ok(())
}

/// Puts a scheduled attempt off until `until` without counting it (its endpoint was busy:
/// it is due again at once, and claimed when its endpoint has room), if the delivery still
/// owes that attempt.
pub async fn put_off(
    on: impl Executor,
    id: &str,
    attempt: i32,
    until: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "UPDATE deliveries SET next_attempt_at = $3 \
         WHERE id = $1 AND status = 'pending' AND attempts = $2",
    )
    .bind(id)
    .bind(attempt)
    .bind(until)
    .execute(on)
    .await?;
    Ok(())
}

/// Sets a delivery's status alone (skipped: nothing was sent).
pub async fn set_status(on: impl Executor, id: &str, status: &str) -> Result<(), DbError> {
    query(
        "UPDATE deliveries SET status = $2, next_attempt_at = NULL \
         WHERE id = $1 AND status = 'pending'",
    )
    .bind(id)
    .bind(status)
    .execute(on)
    .await?;
    Ok(())
}

/// Every attempt at `delivery_id`, oldest first.
pub async fn attempts(on: impl Executor, delivery_id: &str) -> Result<Vec<Attempt>, DbError> {
    query(
        "SELECT id, delivery_id, endpoint_id, trigger, started_at, duration_ms, \
         response_status, response_body, error, succeeded FROM delivery_attempts \
         WHERE delivery_id = $1 ORDER BY started_at, id",
    )
    .bind(delivery_id)
    .fetch_all(on)
    .await
}
