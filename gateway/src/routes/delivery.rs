//! The `delivery` group under `/api/billing` (`gatehouse.billing_webhook.v1.DeliveryService`):
//! an organization's event log, each event's deliveries and attempts, and replays. Every
//! route needs the permission to manage the organization's billing
//! ([`Permitted`]).

use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use gatehouse_kit::errors::base;
use gatehouse_proto::billing_webhook::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::Group;
use crate::body::whole_number;
use crate::error::ApiError;
use crate::extract::Input;
use crate::extract::organization::{
    ManageBilling, NamesOrganization, OrganizationInput, Permitted,
};
use crate::openapi::BillingErrors;
use crate::policy::{Policy, RateRule, check_organization};
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::billing::{BillingEvent, EventDetail, EventPage};

pub fn router() -> Group {
    Group::new()
        .route(route!(list_events), Policy::DEFAULT)
        .route(route!(get_event), Policy::DEFAULT)
        .route(route!(replay_event), Policy::DEFAULT)
        .route(route!(replay_range), Policy::DEFAULT)
}

/// An ISO 8601 time from the input, as milliseconds; `field` names it in the refusal.
fn unix_ms(value: Option<&str>, field: &str) -> Result<Option<i64>, ApiError> {
    value
        .map(|text| {
            DateTime::parse_from_rfc3339(text)
                .map(|t| t.with_timezone(&Utc).timestamp_millis())
                .map_err(|_| {
                    base::VALIDATION_ERROR
                        .with_message(format!(
                            "[{field}] Invalid input: expected an ISO 8601 date-time"
                        ))
                        .into()
                })
        })
        .transpose()
}

#[derive(Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListEventsQuery {
    /// Only events of this type (`order.paid`, `webhook.test`, …).
    #[serde(rename = "type")]
    #[param(rename = "type")]
    event_type: Option<String>,
    /// Received at or after this time (ISO 8601).
    #[param(format = DateTime)]
    since: Option<String>,
    /// Received before this time (ISO 8601).
    #[param(format = DateTime)]
    until: Option<String>,
    /// Only events delivered (or being delivered) to this endpoint.
    endpoint_id: Option<String>,
    /// Only events with a delivery in this status: pending, delivered, failed or skipped.
    #[param(value_type = Option<DeliveryStatus>, inline)]
    status: Option<String>,
    /// 1–100 (50 when absent).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    #[param(value_type = Option<i64>, minimum = 0, maximum = 4294967295.0)]
    offset: Option<String>,
    organization_id: Option<String>,
}

/// A time range and a page, parsed.
type Window = (Option<i64>, Option<i64>, Option<u32>, Option<u32>);

impl ListEventsQuery {
    /// The range and the page the query asks for, or its refusal.
    fn window(&self) -> Result<Window, ApiError> {
        Ok((
            unix_ms(self.since.as_deref(), "query.since")?,
            unix_ms(self.until.as_deref(), "query.until")?,
            whole_number(self.limit.as_deref(), "limit", 1..=100)?,
            whole_number(self.offset.as_deref(), "offset", 0..=u32::MAX)?,
        ))
    }
}

impl NamesOrganization for ListEventsQuery {
    fn organization_id(&self) -> Option<&str> {
        self.organization_id.as_deref()
    }

    // A malformed range or page is refused before the permission is asked for.
    fn check(&self) -> Result<(), ApiError> {
        self.window().map(|_| ())
    }
}

/// A delivery's status, as the log filters by it (checked by the service).
#[derive(ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
    Skipped,
}

/// The organization's event log, newest first, each event with its endpoints' deliveries.
#[utoipa::path(get, path = "/events", tag = "delivery", params(ListEventsQuery),
    responses((status = 200, body = EventPage, description = "One page of the log"), BillingErrors))]
async fn list_events(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListEventsQuery, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let (since_unix_ms, until_unix_ms, limit, offset) = body.window()?;
    let organization_id = auth.organization_id;
    let page = state
        .deliveries
        .clone()
        .list_events(pb::ListEventsRequest {
            organization_id,
            event_type: body.event_type,
            since_unix_ms,
            until_unix_ms,
            endpoint_id: body.endpoint_id,
            delivery_status: body.status,
            limit,
            offset,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&EventPage {
        events: page
            .events
            .into_iter()
            .map(|event| BillingEvent::new(event, false))
            .collect(),
        has_more: page.has_more,
    }))
}

/// One event: its payload as received, its deliveries and every attempt with the answer's
/// status, body and timing.
#[utoipa::path(get, path = "/events/{eventId}", tag = "delivery",
    params(("eventId" = String, Path), OrganizationInput),
    responses((status = 200, body = EventDetail, description = "The event"), BillingErrors))]
async fn get_event(
    State(state): State<AppState>,
    Path(event_id): Path<String>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let found = state
        .deliveries
        .clone()
        .get_event(pb::GetEventRequest {
            organization_id,
            event_id,
        })
        .await?
        .into_inner();
    let event = found.event.ok_or(base::INTERNAL_SERVER_ERROR)?;
    let payload = serde_json::from_slice(&found.body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&found.body).into_owned()));
    Ok(Reply::json(&EventDetail {
        event: BillingEvent::new(event, true),
        payload,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayEventBody {
    /// Only to this endpoint (one that never had the event gets a new delivery on the retry
    /// schedule); absent: every endpoint it was delivered to.
    endpoint_id: Option<String>,
    organization_id: Option<String>,
}

impl NamesOrganization for ReplayEventBody {
    fn organization_id(&self) -> Option<&str> {
        self.organization_id.as_deref()
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replayed {
    /// The deliveries sent again (their `webhook-id`s).
    delivery_ids: Vec<String>,
}

/// Sends the event again, once, with the same `webhook-id` (counted against the
/// organization's `RATE_LIMIT_REPLAY_*`).
#[utoipa::path(post, path = "/events/{eventId}/replay", tag = "delivery",
    params(("eventId" = String, Path)), request_body = Option<ReplayEventBody>,
    responses((status = 200, body = Replayed, description = "What was sent again"), BillingErrors))]
async fn replay_event(
    State(state): State<AppState>,
    Path(event_id): Path<String>,
    Input { body, auth, .. }: Input<ReplayEventBody, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    check_organization(&state, &organization_id, RateRule::Replay).await?;
    let replayed = state
        .deliveries
        .clone()
        .replay_event(pb::ReplayEventRequest {
            organization_id,
            event_id,
            endpoint_id: body.endpoint_id,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&Replayed {
        delivery_ids: replayed.delivery_ids,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayRangeBody {
    /// Events received at or after this time (ISO 8601, at most 90 days ago).
    since: String,
    /// Before this time; now when absent.
    until: Option<String>,
    /// Only this endpoint's deliveries.
    endpoint_id: Option<String>,
    /// Delivered ones too; by default only those that failed or were skipped.
    include_delivered: Option<bool>,
    organization_id: Option<String>,
}

impl ReplayRangeBody {
    /// The range the body asks for, or its refusal.
    fn range(&self) -> Result<(i64, Option<i64>), ApiError> {
        Ok((
            unix_ms(Some(&self.since), "body.since")?.unwrap_or_default(),
            unix_ms(self.until.as_deref(), "body.until")?,
        ))
    }
}

impl NamesOrganization for ReplayRangeBody {
    fn organization_id(&self) -> Option<&str> {
        self.organization_id.as_deref()
    }

    // A malformed range is refused before the permission is asked for.
    fn check(&self) -> Result<(), ApiError> {
        self.range().map(|_| ())
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayedRange {
    /// How many deliveries were sent again (at most 10,000).
    replayed: u32,
}

/// Sends again, once each, the deliveries of the events received in a time range (counted
/// against the organization's `RATE_LIMIT_REPLAY_*`).
#[utoipa::path(post, path = "/events/replay", tag = "delivery", request_body = ReplayRangeBody,
    responses((status = 200, body = ReplayedRange, description = "How many were sent again"), BillingErrors))]
async fn replay_range(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ReplayRangeBody, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let (since_unix_ms, until_unix_ms) = body.range()?;
    let organization_id = auth.organization_id;
    check_organization(&state, &organization_id, RateRule::Replay).await?;
    let replayed = state
        .deliveries
        .clone()
        .replay_range(pb::ReplayRangeRequest {
            organization_id,
            since_unix_ms,
            until_unix_ms,
            endpoint_id: body.endpoint_id,
            include_delivered: body.include_delivered.unwrap_or(false),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&ReplayedRange {
        replayed: replayed.replayed,
    }))
}
