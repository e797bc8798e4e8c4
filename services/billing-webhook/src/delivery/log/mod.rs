//! The event log an organization reads: the events that belong to it (its customers' events
//! and the test events it sent; every event for a platform organization), newest first, each
//! with its own endpoints' deliveries. Nothing here shows another organization's deliveries.

pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError};
use gatehouse_kit::errors::billing as codes;

use super::store::{self as attempts, Attempt, status};
use crate::error::BillingError;

/// A page holds at most this many events, and this many when the caller names no limit.
pub const MAX_PAGE: u32 = 100;
pub const DEFAULT_PAGE: u32 = 50;

/// What the log is narrowed to.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub event_type: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Only events with a delivery to this endpoint, or with a delivery in this status.
    pub endpoint_id: Option<String>,
    pub delivery_status: Option<String>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct LoggedEvent {
    pub id: String,
    pub webhook_id: String,
    pub event_type: String,
    pub event_timestamp: Option<DateTime<Utc>>,
    pub received_at: DateTime<Utc>,
    pub origin: String,
}

/// A delivery as the log shows it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct LoggedDelivery {
    pub id: String,
    pub event_id: String,
    pub endpoint_id: String,
    pub status: String,
    pub attempts: i32,
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// One event of the log with this organization's deliveries of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub event: LoggedEvent,
    pub deliveries: Vec<(LoggedDelivery, Vec<Attempt>)>,
}

pub struct EventLog {
    pub db: Db,
    pub platform_organizations: Vec<String>,
}

impl EventLog {
    pub fn is_platform(&self, organization_id: &str) -> bool {
        self.platform_organizations
            .iter()
            .any(|id| id == organization_id)
    }

    /// One page of the log, newest first, and whether more follow.
    pub async fn list(
        &self,
        organization_id: &str,
        filter: &Filter,
    ) -> Result<(Vec<Entry>, bool), BillingError> {
        if let Some(wanted) = &filter.delivery_status
            && !status::ALL.contains(&wanted.as_str())
        {
            return Err(codes::INVALID_DELIVERY_STATUS.into());
        }
        let limit = filter.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
        // One more than the page: whether more follow, without counting them all.
        let mut events = store::events(
            &self.db,
            organization_id,
            self.is_platform(organization_id),
            filter,
            u64::from(limit) + 1,
            filter.offset.map(u64::from),
        )
        .await?;
        let has_more = events.len() > limit as usize;
        events.truncate(limit as usize);
        let ids: Vec<&str> = events.iter().map(|event| event.id.as_str()).collect();
        let mut deliveries = self.deliveries(organization_id, &ids).await?;
        let entries = events
            .into_iter()
            .map(|event| {
                let mine = deliveries
                    .extract_if(.., |d| d.event_id == event.id)
                    .map(|d| (d, Vec::new()))
                    .collect();
                Entry {
                    event,
                    deliveries: mine,
                }
            })
            .collect();
        Ok((entries, has_more))
    }

    /// One event with its body and this organization's deliveries with every attempt.
    pub async fn get(
        &self,
        organization_id: &str,
        event_id: &str,
    ) -> Result<(Entry, Vec<u8>), BillingError> {
        let event = self.event(organization_id, event_id).await?;
        let body = store::body(&self.db, event_id).await?;
        let mut deliveries = Vec::new();
        for delivery in self.deliveries(organization_id, &[event_id]).await? {
            let attempts = attempts::attempts(&self.db, &delivery.id).await?;
            deliveries.push((delivery, attempts));
        }
        Ok((Entry { event, deliveries }, body))
    }

    /// The event if `organization_id` may see it, else `EVENT_NOT_FOUND`.
    pub async fn event(
        &self,
        organization_id: &str,
        event_id: &str,
    ) -> Result<LoggedEvent, BillingError> {
        let platform = self.is_platform(organization_id);
        store::event(&self.db, organization_id, platform, event_id)
            .await?
            .ok_or_else(|| codes::EVENT_NOT_FOUND.into())
    }

    /// This organization's endpoints' deliveries of `event_ids`, oldest first.
    pub(in crate::delivery) async fn deliveries(
        &self,
        organization_id: &str,
        event_ids: &[&str],
    ) -> Result<Vec<LoggedDelivery>, DbError> {
        store::deliveries(&self.db, organization_id, event_ids).await
    }
}
