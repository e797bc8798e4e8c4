//! The projections' consumer (queue `billing-webhook.projections`): each
//! `billing.event-received` reads its stored event and files the entity it carries, in the
//! consumer's transaction. A body that does not match its model is logged and left stored
//! (acknowledged: retrying would not change it); an unknown event type has nothing to file.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::BillingEventReceived;
use prost::Message as _;

use crate::intake::store as received;
use crate::polar::Envelope;

pub struct Projections;

impl Handler for Projections {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            if message.topic != BillingEventReceived::TOPIC {
                tracing::debug!(topic = %message.topic, "not an event this queue handles");
                return Ok(());
            }
            let event_id = BillingEventReceived::decode(message.payload.as_slice())?.event_id;
            let Some(stored) = received::find(&mut *tx, &event_id).await? else {
                tracing::warn!(%event_id, "billing.event-received for an event not stored");
                return Ok(());
            };
            let value: serde_json::Value = match serde_json::from_slice(&stored.body) {
                Ok(value) => value,
                Err(error) => {
                    tracing::warn!(%event_id, %error, "stored webhook body is not JSON; not projected");
                    return Ok(());
                }
            };
            let data = value.get("data").cloned().unwrap_or_default();
            let envelope = match Envelope::from_value(value) {
                Ok(envelope) => envelope,
                Err(error) => {
                    tracing::warn!(%event_id, %error, "stored webhook does not match its model; not projected");
                    return Ok(());
                }
            };
            match super::entity(&event_id, &envelope, &data) {
                Some(entity) => {
                    let changed = super::store::upsert(&mut *tx, &entity).await?;
                    tracing::debug!(%event_id, kind = entity.kind, id = %entity.id, changed, "projected");
                }
                None => {
                    tracing::info!(%event_id, event_type = envelope.event_type(), "nothing to project")
                }
            }
            Ok(())
        })
    }
}
