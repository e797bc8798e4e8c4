//! Domain types to and from the billing-webhook service's proto messages: the one place they
//! meet.

use chrono::{DateTime, Utc};
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::billing_webhook::v1 as pb;

use crate::customer::{CustomerState, OrganizationState};
use crate::delivery::log::Entry;
use crate::delivery::store::Attempt;
use crate::endpoint::Endpoint;

/// A time as the protos carry it: milliseconds since the Unix epoch.
pub fn unix_ms(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// A time a request carries, `VALIDATION_ERROR` when it is out of range.
pub fn time(unix_ms: i64) -> Result<DateTime<Utc>, Failure> {
    DateTime::from_timestamp_millis(unix_ms)
        .ok_or_else(|| base::VALIDATION_ERROR.with_message("Invalid time"))
}

impl From<Endpoint> for pb::Endpoint {
    fn from(e: Endpoint) -> Self {
        Self {
            id: e.id,
            organization_id: e.organization_id,
            url: e.url,
            description: e.description,
            event_types: e.event_types,
            enabled: e.enabled,
            disabled_reason: e.disabled_reason,
            polar_signing: e.polar_signing,
            failing_since_unix_ms: e.failing_since.map(unix_ms),
            previous_secret_expires_at_unix_ms: e
                .previous_secret
                .is_some()
                .then_some(e.previous_secret_expires_at)
                .flatten()
                .map(unix_ms),
            created_at_unix_ms: unix_ms(e.created_at),
            updated_at_unix_ms: unix_ms(e.updated_at),
        }
    }
}

impl From<Attempt> for pb::Attempt {
    fn from(a: Attempt) -> Self {
        Self {
            id: a.id,
            trigger: a.trigger,
            started_at_unix_ms: unix_ms(a.started_at),
            duration_ms: a.duration_ms,
            response_status: a.response_status,
            response_body: a.response_body,
            error: a.error,
            succeeded: a.succeeded,
        }
    }
}

impl From<Entry> for pb::Event {
    fn from(entry: Entry) -> Self {
        let event = entry.event;
        Self {
            id: event.id,
            webhook_id: event.webhook_id,
            event_type: event.event_type,
            timestamp_unix_ms: event.event_timestamp.map(unix_ms),
            received_at_unix_ms: unix_ms(event.received_at),
            origin: event.origin,
            deliveries: entry
                .deliveries
                .into_iter()
                .map(|(d, attempts)| pb::Delivery {
                    id: d.id,
                    endpoint_id: d.endpoint_id,
                    status: d.status,
                    attempts: d.attempts,
                    last_attempt_at_unix_ms: d.last_attempt_at.map(unix_ms),
                    next_attempt_at_unix_ms: d.next_attempt_at.map(unix_ms),
                    created_at_unix_ms: unix_ms(d.created_at),
                    attempt_log: attempts.into_iter().map(Into::into).collect(),
                })
                .collect(),
        }
    }
}

impl From<CustomerState> for pb::GetCustomerStateResponse {
    fn from(state: CustomerState) -> Self {
        Self {
            customer_json: state.customer,
            state_json: state.state,
            subscriptions_json: state.subscriptions,
            orders_json: state.orders,
            benefit_grants_json: state.benefit_grants,
            refunds_json: state.refunds,
        }
    }
}

impl From<OrganizationState> for pb::GetOrganizationStateResponse {
    fn from(state: OrganizationState) -> Self {
        Self {
            subscriptions_json: state.subscriptions,
            orders_json: state.orders,
            benefit_grants_json: state.benefit_grants,
            refunds_json: state.refunds,
        }
    }
}
