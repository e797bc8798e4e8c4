//! The billing API's JSON shapes (`/api/billing`): sellers' endpoints, the event log, its
//! deliveries and their attempts, built from the billing-webhook service's protos. Times are
//! ISO 8601, as in the rest of the API; the secret appears only in [`EndpointSecret`].

use gatehouse_kit::ids::iso;
use gatehouse_proto::billing_webhook::v1 as pb;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub id: String,
    pub organization_id: String,
    pub url: String,
    pub description: String,
    /// The event types it takes; empty takes every type.
    pub event_types: Vec<String>,
    pub enabled: bool,
    /// Why the service disabled it (it kept failing), if it did.
    pub disabled_reason: Option<String>,
    /// Signed with the UTF-8 text of the secret as the key, as the payments platform signs.
    pub polar_signing: bool,
    /// Since when every attempt has failed, if the last one did.
    pub failing_since: Option<String>,
    /// Until when the secret before the last rotation still signs.
    pub previous_secret_expires_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl From<pb::Endpoint> for Endpoint {
    fn from(e: pb::Endpoint) -> Self {
        Self {
            id: e.id,
            organization_id: e.organization_id,
            url: e.url,
            description: e.description,
            event_types: e.event_types,
            enabled: e.enabled,
            disabled_reason: e.disabled_reason,
            polar_signing: e.polar_signing,
            failing_since: e.failing_since_unix_ms.map(iso),
            previous_secret_expires_at: e.previous_secret_expires_at_unix_ms.map(iso),
            created_at: iso(e.created_at_unix_ms),
            updated_at: iso(e.updated_at_unix_ms),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointSecret {
    /// `whsec_` + base64: what the receiver's Standard Webhooks library is given.
    pub secret: String,
    /// The secret before the last rotation, while it still signs beside the new one.
    pub previous_secret: Option<String>,
    pub previous_secret_expires_at: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub id: String,
    /// `scheduled` (the retry schedule) or `manual` (a replay).
    pub trigger: String,
    pub started_at: String,
    pub duration_ms: i64,
    pub response_status: Option<i32>,
    /// The first 2,048 characters of the answer.
    pub response_body: Option<String>,
    /// Why no answer came: a connect error, a timeout, a refused address.
    pub error: Option<String>,
    pub succeeded: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// The `webhook-id` the endpoint receives: the same on every attempt and replay.
    pub id: String,
    pub endpoint_id: String,
    /// `pending`, `delivered`, `failed` or `skipped`.
    pub status: String,
    pub attempts: i32,
    pub last_attempt_at: Option<String>,
    pub next_attempt_at: Option<String>,
    pub created_at: String,
    /// Every attempt, oldest first (one event's page only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt_log: Option<Vec<Attempt>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillingEvent {
    pub id: String,
    pub webhook_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// The envelope's `timestamp`.
    pub timestamp: Option<String>,
    pub received_at: String,
    /// `polar` (the payments platform) or `test` (a test event).
    pub origin: String,
    /// This organization's endpoints' deliveries of it.
    pub deliveries: Vec<Delivery>,
}

impl BillingEvent {
    /// `with_attempts`: one event's page, which lists every attempt.
    pub fn new(event: pb::Event, with_attempts: bool) -> Self {
        Self {
            id: event.id,
            webhook_id: event.webhook_id,
            event_type: event.event_type,
            timestamp: event.timestamp_unix_ms.map(iso),
            received_at: iso(event.received_at_unix_ms),
            origin: event.origin,
            deliveries: event
                .deliveries
                .into_iter()
                .map(|d| Delivery {
                    id: d.id,
                    endpoint_id: d.endpoint_id,
                    status: d.status,
                    attempts: d.attempts,
                    last_attempt_at: d.last_attempt_at_unix_ms.map(iso),
                    next_attempt_at: d.next_attempt_at_unix_ms.map(iso),
                    created_at: iso(d.created_at_unix_ms),
                    attempt_log: with_attempts.then(|| {
                        d.attempt_log
                            .into_iter()
                            .map(|a| Attempt {
                                id: a.id,
                                trigger: a.trigger,
                                started_at: iso(a.started_at_unix_ms),
                                duration_ms: a.duration_ms,
                                response_status: a.response_status,
                                response_body: a.response_body,
                                error: a.error,
                                succeeded: a.succeeded,
                            })
                            .collect()
                    }),
                })
                .collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventPage {
    pub events: Vec<BillingEvent>,
    /// More events match after this page.
    pub has_more: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventDetail {
    #[serde(flatten)]
    pub event: BillingEvent,
    /// The body as received, parsed; the text itself when it is not JSON.
    #[schema(value_type = Object)]
    pub payload: Value,
}
