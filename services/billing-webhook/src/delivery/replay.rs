//! Replays: a stored event sent again to an organization's endpoints, or every delivery of a
//! time range that failed (billing-webhooks reference §5, Svix's resend and recover). A
//! replay of a delivery is a manual attempt with the same `webhook-id`, tried once and not
//! retried; the delivery's own schedule, if it has one left, goes on. A replay is owed in the
//! database (`deliveries.replay_at`) and claimed by the scheduler within its endpoint's room,
//! like a retry: a range of thousands never runs more attempts at once at an endpoint than
//! its limit, and waits for none but that endpoint's.

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::billing as codes;
use gatehouse_kit::ids;

use super::log::{self, EventLog};
use super::scheduler::Nudge;
use super::store;
use crate::endpoint;
use crate::error::BillingError;

/// A range replay sends at most this many deliveries (Svix's recover stops at 10,000).
pub const MAX_RANGE_REPLAY: usize = 10_000;
/// How far back a range may start: as far as bodies are kept (Svix's default retention).
pub const MAX_RANGE_AGE: TimeDelta = TimeDelta::days(90);

pub struct Replays {
    pub db: Db,
    pub log: EventLog,
    /// This process's scheduler, told when replays are owed so it claims them at once.
    pub scheduler: Nudge,
}

impl Replays {
    /// Sends `event_id` again to each of the organization's enabled endpoints it was delivered
    /// to, or to `endpoint_id` alone. An endpoint that never had it (registered later, or filtering
    /// its type out) gets a new delivery on the retry schedule. Returns the deliveries sent.
    pub async fn event(
        &self,
        organization_id: &str,
        event_id: &str,
        endpoint_id: Option<&str>,
    ) -> Result<Vec<String>, BillingError> {
        // Visible to the organization, and its deliveries (no body, no attempts: not sent here).
        self.log.event(organization_id, event_id).await?;
        let deliveries = self.log.deliveries(organization_id, &[event_id]).await?;
        let endpoints = endpoint::store::list(&self.db, organization_id).await?;
        let enabled = |id: &str| endpoints.iter().any(|e| e.id == id && e.enabled);
        let now = ids::now();
        let mut tx = self.db.begin().await?;
        let mut sent = Vec::new();
        if let Some(endpoint_id) = endpoint_id {
            if !endpoints.iter().any(|e| e.id == endpoint_id) {
                return Err(codes::ENDPOINT_NOT_FOUND.into());
            }
            if !enabled(endpoint_id) {
                return Err(codes::ENDPOINT_DISABLED.into());
            }
            match deliveries.iter().find(|d| d.endpoint_id == endpoint_id) {
                Some(delivery) => {
                    store::request_replay(&mut tx, &delivery.id, now).await?;
                    sent.push(delivery.id.clone());
                }
                None => {
                    if let Some(id) =
                        crate::fan_out::deliver(&mut tx, event_id, endpoint_id, now).await?
                    {
                        sent.push(id);
                    }
                }
            }
        } else {
            // A disabled endpoint is sent nothing, replays included.
            for delivery in deliveries.iter().filter(|d| enabled(&d.endpoint_id)) {
                store::request_replay(&mut tx, &delivery.id, now).await?;
                sent.push(delivery.id.clone());
            }
        }
        tx.commit().await?;
        self.scheduler.nudge();
        Ok(sent)
    }

    /// Sends again the organization's deliveries, to its enabled endpoints, of the events it
    /// sees that were received in `[since, until)`: those that failed or were skipped (never
    /// delivered), or every one with `include_delivered`. Returns how many.
    pub async fn range(
        &self,
        organization_id: &str,
        since: DateTime<Utc>,
        until: Option<DateTime<Utc>>,
        endpoint_id: Option<&str>,
        include_delivered: bool,
    ) -> Result<usize, BillingError> {
        let now = ids::now();
        let until = until.unwrap_or(now).min(now);
        if since >= until || since < now - MAX_RANGE_AGE {
            return Err(codes::INVALID_REPLAY_RANGE.into());
        }
        let mut tx = self.db.begin().await?;
        if let Some(endpoint_id) = endpoint_id {
            let named = endpoint::store::get(&mut tx, organization_id, endpoint_id)
                .await?
                .ok_or(codes::ENDPOINT_NOT_FOUND)?;
            if !named.enabled {
                return Err(codes::ENDPOINT_DISABLED.into());
            }
        }
        let replayed = log::store::request_range_replay(
            &mut tx,
            organization_id,
            self.log.is_platform(organization_id),
            since,
            until,
            endpoint_id,
            include_delivered,
            MAX_RANGE_REPLAY as i64,
            now,
        )
        .await?;
        tx.commit().await?;
        self.scheduler.nudge();
        Ok(usize::try_from(replayed).unwrap_or(usize::MAX))
    }
}
