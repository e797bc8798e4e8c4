//! The event log's statements: the events an organization sees, their bodies, and its own
//! endpoints' deliveries of them.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{
    Alias, Expr, ExprTrait, JoinType, Order, Query, SelectStatement,
};
use gatehouse_kit::db::{Db, DbError, Executor, query};

use super::{Filter, LoggedDelivery, LoggedEvent};
use crate::intake::store as received;

const EVENT_COLUMNS: [&str; 6] = [
    "id",
    "webhook_id",
    "event_type",
    "event_timestamp",
    "received_at",
    "origin",
];

/// `SELECT … FROM received_events e` limited to the events `organization_id` may see: its
/// own, and for a platform organization (`platform`) every event from the payments platform
/// too (never another organization's test events).
fn visible(organization_id: &str, platform: bool) -> SelectStatement {
    let e = Alias::new("e");
    let mut select = Query::select();
    select
        .columns(EVENT_COLUMNS.map(|c| (e.clone(), Alias::new(c))))
        .from_as(Alias::new("received_events"), e.clone());
    let own = Expr::col((e.clone(), Alias::new("organization_id"))).eq(organization_id);
    if platform {
        select.and_where(own.or(Expr::col((e, Alias::new("origin"))).eq(received::origin::POLAR)));
    } else {
        select.and_where(own);
    }
    select
}

/// The events `organization_id` sees that `filter` keeps, newest first: at most `limit` from
/// `offset` on.
pub async fn events(
    db: &Db,
    organization_id: &str,
    platform: bool,
    filter: &Filter,
    limit: u64,
    offset: Option<u64>,
) -> Result<Vec<LoggedEvent>, DbError> {
    let e = Alias::new("e");
    let column = |name: &str| Expr::col((e.clone(), Alias::new(name)));
    let mut select = visible(organization_id, platform);
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
            deliveries.and_where(Expr::col((d.clone(), Alias::new("endpoint_id"))).eq(endpoint_id));
        }
        if let Some(wanted) = &filter.delivery_status {
            deliveries.and_where(Expr::col((d, Alias::new("status"))).eq(wanted.as_str()));
        }
        select.and_where(Expr::exists(deliveries));
    }
    select
        .order_by((e.clone(), Alias::new("received_at")), Order::Desc)
        .order_by((e, Alias::new("id")), Order::Desc);
    db.build_page(&select, Some(limit), offset)
        .fetch_all(db)
        .await
}

/// The event if `organization_id` sees it.
pub async fn event(
    db: &Db,
    organization_id: &str,
    platform: bool,
    event_id: &str,
) -> Result<Option<LoggedEvent>, DbError> {
    let mut select = visible(organization_id, platform);
    select.and_where(Expr::col((Alias::new("e"), Alias::new("id"))).eq(event_id));
    db.build(&select).fetch_optional(db).await
}

/// A stored event's body, byte for byte.
pub async fn body(db: &Db, event_id: &str) -> Result<Vec<u8>, DbError> {
    let (body,): (Vec<u8>,) = query("SELECT body FROM received_events WHERE id = $1")
        .bind(event_id)
        .fetch_one(db)
        .await?;
    Ok(body)
}

/// This organization's endpoints' deliveries of `event_ids`, oldest first.
pub async fn deliveries(
    db: &Db,
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
            Expr::col((p.clone(), Alias::new("id"))).equals((d.clone(), Alias::new("endpoint_id"))),
        )
        .and_where(Expr::col((p, Alias::new("organization_id"))).eq(organization_id))
        .and_where(Expr::col((d.clone(), Alias::new("event_id"))).is_in(event_ids.iter().copied()))
        .order_by((d.clone(), Alias::new("created_at")), Order::Asc)
        .order_by((d, Alias::new("id")), Order::Asc);
    db.build(&select).fetch_all(db).await
}

/// Owes a replay, due at `now`, to each of the organization's deliveries a range replay sends
/// again: to its enabled endpoints, of the events it sees ([`super::EventLog`]'s rule;
/// `platform`: it is a platform organization) received in `[since, until)`, failed or skipped
/// unless `include_delivered`, the oldest `cap`. One owed already stays as it is. How many.
#[allow(clippy::too_many_arguments)]
pub(in crate::delivery) async fn request_range_replay(
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
