//! The retry schedule, kept in the database: a pending delivery's `next_attempt_at` is when
//! its next attempt is due, and `replay_at` when a replay's is. Every tick the scheduler
//! claims the due ones and sends each its `billing.delivery-due` (through the outbox, in the
//! claim's transaction), so a retry waits in no queue and survives any restart; with several
//! replicas, each due attempt is claimed once. Between ticks, an endpoint that had more due
//! than room is claimed for again as soon as one of its attempts ends ([`Slots::freed`]): its
//! pace is its own answer time. A claim lasts [`CLAIM`]: an attempt whose message was lost (a
//! crash between the claim and the attempt) is due again when it ends.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::db::{Db, DbError};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::BillingDeliveryDue;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use std::sync::Arc;

use super::slots::Slots;
use super::store::{self, Owed};

/// How long a claimed attempt is left to its worker before it is due again: well beyond the
/// longest attempt, and beyond a work queue's backlog in all but an outage.
pub const CLAIM: TimeDelta = TimeDelta::minutes(10);
/// Due deliveries claimed per transaction.
const BATCH: i64 = 500;

/// Tells the scheduler to look for due attempts now rather than at its next tick (replays
/// were asked for).
#[derive(Clone, Debug, Default)]
pub struct Nudge(Arc<Notify>);

impl Nudge {
    pub fn nudge(&self) {
        self.0.notify_one();
    }
}

pub struct Scheduler {
    pub db: Db,
    pub tick: Duration,
    pub nudged: Nudge,
    /// The endpoints' room in this process (the deliverer's): an endpoint is claimed for
    /// only as many attempts as it can take now, and again as soon as one of them ends.
    pub slots: Arc<Slots>,
}

impl Scheduler {
    pub fn spawn(self, shutdown: CancellationToken) {
        tokio::spawn(async move {
            let mut next_tick = Instant::now() + self.tick;
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep_until(next_tick) => {
                        next_tick = Instant::now() + self.tick;
                        self.claim_every_due().await;
                    }
                    () = self.nudged.0.notified() => self.claim_every_due().await,
                    freed = self.slots.freed() => {
                        if let Err(error) = self.claim_for(freed).await {
                            tracing::warn!(%error, "claiming freed endpoints' deliveries failed; next tick");
                        }
                    }
                }
            }
        });
    }

    /// Claims every delivery due now that has room, batch after batch.
    async fn claim_every_due(&self) {
        loop {
            match self.run_once().await {
                // A full batch: more may be due; look again at once.
                Ok(claimed) if i64::try_from(claimed).is_ok_and(|n| n == BATCH) => continue,
                Ok(_) => return,
                Err(error) => {
                    tracing::warn!(%error, "claiming due deliveries failed; next tick");
                    return;
                }
            }
        }
    }

    /// Claims the deliveries due now and sends their messages; how many.
    pub async fn run_once(&self) -> Result<usize, DbError> {
        let now = ids::now();
        // Read first: most ticks find nothing and take no write lock. One more than an
        // endpoint's room: finding no room for it marks the endpoint waiting, so it is
        // claimed for again as soon as an attempt ends rather than at the next tick.
        let per_endpoint = i64::try_from(self.slots.per_endpoint() + 1).unwrap_or(i64::MAX);
        let due = store::due_by(&self.db, now, per_endpoint, BATCH).await?;
        self.claim(due, now).await
    }

    /// Claims the due deliveries of `endpoints`, each of which just ended an attempt while
    /// it had more waiting: as many as each has room for now.
    async fn claim_for(&self, endpoints: Vec<String>) -> Result<usize, DbError> {
        let now = ids::now();
        let mut due = Vec::new();
        for endpoint_id in endpoints {
            let room = self.slots.room(&endpoint_id);
            if room == 0 {
                continue;
            }
            // One more than its room, as at a tick: it tells whether more are waiting.
            let limit = i64::try_from(room + 1).unwrap_or(i64::MAX);
            let owed = store::due_of(&self.db, &endpoint_id, now, limit).await?;
            if owed.len() <= room {
                self.slots.drained(&endpoint_id);
            }
            due.extend(owed);
        }
        self.claim(due, now).await
    }

    /// Claims each of `due` whose endpoint has room, in one transaction, and sends their
    /// messages with it; how many.
    async fn claim(&self, due: Vec<Owed>, now: DateTime<Utc>) -> Result<usize, DbError> {
        if due.is_empty() {
            return Ok(0);
        }
        let mut tx = self.db.begin().await?;
        let mut claimed = 0;
        for owed in due {
            // An endpoint with no room now is left due: it waits for one of its attempts to
            // end (or the next tick).
            if !self.slots.reserve(&owed.endpoint_id) {
                continue;
            }
            let made = if owed.manual {
                store::claim_replay(&mut tx, &owed.id, now, now + CLAIM).await?
            } else {
                store::claim(&mut tx, &owed.id, now, now + CLAIM).await?
            };
            if made {
                tx.enqueue(&OutboxEvent::new(&BillingDeliveryDue {
                    delivery_id: owed.id,
                    manual: owed.manual,
                    attempt: owed.attempts,
                }))
                .await?;
                claimed += 1;
            } else {
                self.slots.unreserve(&owed.endpoint_id);
            }
        }
        tx.commit().await?;
        metrics::counter!("billing_delivery_retries_claimed_total").increment(claimed as u64);
        Ok(claimed)
    }
}
