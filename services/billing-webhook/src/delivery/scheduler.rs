//! The retry schedule, kept in the database: a pending delivery's `next_attempt_at` is when
//! its next attempt is due. Every tick the scheduler claims the due ones and sends each its
//! `billing.delivery-due` (through the outbox, in the claim's transaction), so a retry waits
//! in no queue and survives any restart; with several replicas, each due attempt is claimed
//! once. A claim lasts [`CLAIM`]: an attempt whose message was lost (a crash between the
//! claim and the attempt) is due again when it ends.

use std::time::Duration;

use chrono::TimeDelta;
use gatehouse_kit::db::{Db, DbError};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::BillingDeliveryDue;
use tokio_util::sync::CancellationToken;

use std::sync::Arc;

use super::slots::Slots;
use super::store;

/// How long a claimed attempt is left to its worker before it is due again: well beyond the
/// longest attempt, and beyond a work queue's backlog in all but an outage.
pub const CLAIM: TimeDelta = TimeDelta::minutes(10);
/// Due deliveries claimed per transaction.
const BATCH: i64 = 500;

pub struct Scheduler {
    pub db: Db,
    pub tick: Duration,
    /// The endpoints' room in this process (the deliverer's): an endpoint is claimed for
    /// only as many attempts as it can take now.
    pub slots: Arc<Slots>,
}

impl Scheduler {
    pub fn spawn(self, shutdown: CancellationToken) {
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(self.tick) => {}
                }
                match self.run_once().await {
                    // A full batch: more may be due; look again at once.
                    Ok(claimed) if i64::try_from(claimed).is_ok_and(|n| n == BATCH) => continue,
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!(%error, "claiming due deliveries failed; next tick")
                    }
                }
            }
        });
    }

    /// Claims the deliveries due now and sends their messages; how many.
    pub async fn run_once(&self) -> Result<usize, DbError> {
        let now = ids::now();
        // Read first: most ticks find nothing and take no write lock.
        let per_endpoint = i64::try_from(self.slots.per_endpoint()).unwrap_or(i64::MAX);
        let due = store::due_by(&self.db, now, per_endpoint, BATCH).await?;
        if due.is_empty() {
            return Ok(0);
        }
        let mut tx = self.db.begin().await?;
        let mut claimed = 0;
        for (id, attempts, endpoint_id) in due {
            // An endpoint with no room now is left due: looked at again next tick.
            if !self.slots.reserve(&endpoint_id) {
                continue;
            }
            if store::claim(&mut tx, &id, now, now + CLAIM).await? {
                tx.enqueue(&OutboxEvent::new(&BillingDeliveryDue {
                    delivery_id: id,
                    manual: false,
                    attempt: attempts,
                }))
                .await?;
                claimed += 1;
            }
        }
        tx.commit().await?;
        metrics::counter!("billing_delivery_retries_claimed_total").increment(claimed as u64);
        Ok(claimed)
    }
}
