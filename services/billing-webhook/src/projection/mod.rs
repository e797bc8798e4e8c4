//! The projections: every stored event's entity filed as the current state of its kind and id
//! (`billing_entities`), idempotently and in order per entity (billing-webhooks reference
//! §3, §7). An event changes a row only when its entity is newer (`modified_at`, else
//! `created_at`), or as new with a later event timestamp — `customer.state_changed` keeps the
//! customer's `modified_at` while the subscriptions in it change. An older event, or the same
//! one again, changes nothing; events may arrive in any order and more than once.

pub mod store;

use gatehouse_kit::db::{DbError, Tx};
use serde_json::Value;

use crate::intake::store::ReceivedEvent;
use crate::polar::{self, Envelope, Timestamp};

/// Files the entity `stored` carries, in `tx`, and returns it. A body that does not match its
/// model is logged and left stored (retrying would not change it); an unknown event type has
/// nothing to file.
pub async fn project(tx: &mut Tx, stored: &ReceivedEvent) -> Result<Option<Entity>, DbError> {
    let event_id = stored.id.as_str();
    let value: Value = match serde_json::from_slice(&stored.body) {
        Ok(value) => value,
        Err(error) => {
            tracing::warn!(%event_id, %error, "stored webhook body is not JSON; not projected");
            return Ok(None);
        }
    };
    let data = value.get("data").cloned().unwrap_or_default();
    let envelope = match Envelope::from_value(value) {
        Ok(envelope) => envelope,
        Err(error) => {
            tracing::warn!(%event_id, %error, "stored webhook does not match its model; not projected");
            return Ok(None);
        }
    };
    let entity = entity(event_id, &envelope, &data);
    match &entity {
        Some(entity) => {
            let changed = store::upsert(&mut *tx, entity).await?;
            tracing::debug!(%event_id, kind = entity.kind, id = %entity.id, changed, "projected");
        }
        None => {
            tracing::info!(%event_id, event_type = envelope.event_type(), "nothing to project")
        }
    }
    Ok(entity)
}

/// One entity as an event left it: the row [`store::upsert`] files.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    pub kind: &'static str,
    pub id: String,
    pub customer_id: Option<String>,
    pub external_id: Option<String>,
    /// Lower-cased, as it is matched.
    pub email: Option<String>,
    pub organization_id: Option<String>,
    /// The organization it was bought for ([`polar::reference_id`]).
    pub reference_id: Option<String>,
    /// The subscription or order it belongs to ([`polar::EntityRef::purchase_id`]).
    pub purchase_id: Option<String>,
    pub status: Option<String>,
    pub entity_version: i64,
    pub event_version: i64,
    pub event_id: String,
    /// The entity's JSON as the payments platform sent it.
    pub data: String,
}

fn micros(time: Timestamp) -> i64 {
    time.timestamp_micros()
}

/// What `envelope` (stored as `event_id`, its raw `data` beside it) says about its entity, or
/// `None` when there is nothing to file: an unknown event type, or an entity without an id.
pub fn entity(event_id: &str, envelope: &Envelope, data: &Value) -> Option<Entity> {
    let entity = envelope.entity();
    let kind = entity.kind()?;
    let id = entity.id()?.to_string();
    let event_version = micros(envelope.timestamp());
    Some(Entity {
        kind,
        id,
        customer_id: entity.customer_id().map(str::to_string),
        external_id: entity.customer_external_id().map(str::to_string),
        email: entity.customer_email().map(str::to_lowercase),
        organization_id: entity.organization_id().map(str::to_string),
        reference_id: data
            .get("metadata")
            .and_then(polar::reference_id)
            .map(str::to_string),
        purchase_id: entity.purchase_id().map(str::to_string),
        status: data
            .get("status")
            .and_then(Value::as_str)
            .map(str::to_string),
        entity_version: entity
            .modified_or_created_at()
            .map_or(event_version, micros),
        event_version,
        event_id: event_id.to_string(),
        data: data.to_string(),
    })
}
