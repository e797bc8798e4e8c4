//! The event log an organization reads: the events that belong to it (its customers' events
//! and the test events it sent; every event for a platform organization), newest first, each
//! with its own endpoints' deliveries. Nothing here shows another organization's deliveries.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{
    Alias, Expr, ExprTrait, JoinType, Order, Query, SelectStatement,
};
use gatehouse_kit::db::{Db, DbError, Executor, query};
use gatehouse_kit::errors::billing as codes;

use super::store::{self, Attempt, status};
use crate::error::BillingError;
use crate::intake::store as received;

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

const EVENT_COLUMNS: [&str; 6] = [
    "id",
    "webhook_id",
    "event_type",
    "event_timestamp",
    "received_at",
    "origin",
];

impl EventLog {
    pub fn is_platform(&self, organization_id: &str) -> bool {
        self.platform_organizations
            .iter()
            .any(|id| id == organization_id)
    }

    /// `SELECT … FROM received_events e` limited to the events `organization_id` may see:
    /// its own, and for a platform organization every event from the payments platform too
    /// (never another organization's test events).
    fn visible(&self, organization_id: &str) -> SelectStatement {
        let e = Alias::new("e");
        let mut select = Query::select();
        select
            .columns(EVENT_COLUMNS.map(|c| (e.clone(), Alias::new(c))))
            .from_as(Alias::new("received_events"), e.clone());
        let own = Expr::col((e.clone(), Alias::new("organization_id"))).eq(organization_id);
        if self.is_platform(organization_id) {
            select.and_where(
                own.or(Expr::col((e, Alias::new("origin"))).eq(received::origin::POLAR)),
            );
        } else {
            select.and_where(own);
        }
        select
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
        let e = Alias::new("e");
        let column = |name: &str| Expr::col((e.clone(), Alias::new(name)));
        let mut select = self.visible(organization_id);
        if let Some(event_type) = &filter.event_type {
            select.and_where(column("event_type").eq(event_type.as_str()));
        }
        if let Some(since) = filter.since {
            select.and_where(column("received_at").gte(since));
        }
        if let Some(until) = filter.until {
            select.and_where(column("received_at").lt(until));
        }
        if filter.endpoint_id.is_some() || filter.delivery_status.is_some() {
            let (d, p) = (Alias::new("d"), Alias::new("p"));
            let mut deliveries = Query::select();
            deliveries
                .expr(Expr::val(1))
                .from_as(Alias::new("deliveries"), d.clone())
                .join_as(
                    JoinType::InnerJoin,
                    Alias::new("endpoints"),
                    p.clone(),
                    Expr::col((p.clone(), Alias::new("id")))
                        .equals((d.clone(), Alias::new("endpoint_id"))),
                )
                .and_where(
                    Expr::col((d.clone(), Alias::new("event_id")))
                        .equals((e.clone(), Alias::new("id"))),
                )
                .and_where(Expr::col((p, Alias::new("organization_id"))).eq(organization_id));
            if let Some(endpoint_id) = &filter.endpoint_id {
                deliveries
                    .and_where(Expr::col((d.clone(), Alias::new("endpoint_id"))).eq(endpoint_id));
            }
            if let Some(wanted) = &filter.delivery_status {
                deliveries.and_where(Expr::col((d, Alias::new("status"))).eq(wanted.as_str()));
            }
            select.and_where(Expr::exists(deliveries));
        }
        select
            .order_by((e.clone(), Alias::new("received_at")), Order::Desc)
            .order_by((e, Alias::new("id")), Order::Desc);
        let limit = filter.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
        // One more than the page: whether more follow, without counting them all.
        let mut events: Vec<LoggedEvent> = self
            .db
            .build_page(
                &select,
                Some(u64::from(limit) + 1),
                filter.offset.map(u64::from),
            )
            .fetch_all(&self.db)
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
        let body: (Vec<u8>,) = query("SELECT body FROM received_events WHERE id = $1")
            .bind(event_id)
            .fetch_one(&self.db)
            .await?;
        let mut deliveries = Vec::new();
        for delivery in self.deliveries(organization_id, &[event_id]).await? {
            let attempts = store::attempts(&self.db, &delivery.id).await?;
            deliveries.push((delivery, attempts));
        }
        Ok((Entry { event, deliveries }, body.0))
    }

    /// The event if `organization_id` may see it, else `EVENT_NOT_FOUND`.
    pub async fn event(
        &self,
        organization_id: &str,
        event_id: &str,
    ) -> Result<LoggedEvent, BillingError> {
        let mut select = self.visible(organization_id);
        select.and_where(Expr::col((Alias::new("e"), Alias::new("id"))).eq(event_id));
        let event: Option<LoggedEvent> = self.db.build(&select).fetch_optional(&self.db).await?;
        event.ok_or_else(|| codes::EVENT_NOT_FOUND.into())
    }

    /// This organization's endpoints' deliveries of `event_ids`, oldest first.
    pub(super) async fn deliveries(
        &self,
        organization_id: &str,
        event_ids: &[&str],
    ) -> Result<Vec<LoggedDelivery>, DbError> {
        if event_ids.is_empty() {
            return Ok(Vec::new());
        }
        let (d, p) = (Alias::new("d"), Alias::new("p"));
        let mut select = Query::select();
        select
            .columns(
                [
                    "id",
                    "event_id",
                    "endpoint_id",
                    "status",
                    "attempts",
                    "last_attempt_at",
                    "next_attempt_at",
                    "created_at",
                ]
                .map(|c| (d.clone(), Alias::new(c))),
            )
            .from_as(Alias::new("deliveries"), d.clone())
            .join_as(
                JoinType::InnerJoin,
                Alias::new("endpoints"),
                p.clone(),
                Expr::col((p.clone(), Alias::new("id")))
                    .equals((d.clone(), Alias::new("endpoint_id"))),
            )
            .and_where(Expr::col((p, Alias::new("organization_id"))).eq(organization_id))
            .and_where(
                Expr::col((d.clone(), Alias::new("event_id"))).is_in(event_ids.iter().copied()),
            )
            .order_by((d.clone(), Alias::new("created_at")), Order::Asc)
            .order_by((d, Alias::new("id")), Order::Asc);
        self.db.build(&select).fetch_all(&self.db).await
    }
}

/// Owes a replay, due at `now`, to each of the organization's deliveries a range replay sends
/// again: to its enabled endpoints, of the events it sees ([`EventLog`]'s rule; `platform`: it
/// is a platform organization) received in `[since, until)`, failed or skipped unless
/// `include_delivered`, the oldest `cap`. One owed already stays as it is. How many.
#[allow(clippy::too_many_arguments)]
pub(super) async fn request_range_replay(
    on: impl Executor,
    organization_id: &str,
    platform: bool,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    endpoint_id: Option<&str>,
    include_delivered: bool,
    cap: i64,
    now: DateTime<Utc>,
) -> Result<u64, DbError> {
    query(
        "UPDATE deliveries SET replay_at = COALESCE(replay_at, $8) WHERE id IN ( \
           SELECT d.id FROM deliveries d JOIN endpoints p ON p.id = d.endpoint_id \
           JOIN received_events e ON e.id = d.event_id \
           WHERE p.organization_id = $1 AND p.enabled \
           AND (e.organization_id = $1 OR ($7 AND e.origin = 'polar')) \
           AND e.received_at >= $2 AND e.received_at < $3 \
           AND ($4 IS NULL OR d.endpoint_id = $4) \
           AND ($5 OR d.status IN ('failed', 'skipped')) \
           ORDER BY e.received_at, d.id LIMIT $6 \
         )",
    )
    .bind(organization_id)
    .bind(since)
    .bind(until)
    .bind(endpoint_id)
    .bind(include_delivered)
    .bind(cap)
    .bind(platform)
    .bind(now)
    .execute(on)
    .await
}
