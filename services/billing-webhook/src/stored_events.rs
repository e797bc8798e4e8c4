//! The consumer of stored webhook events (queue `billing-webhook.events`): each
//! `billing.event-received` reads its stored event once, files its entity in the projections,
//! finds the organization it belongs to (`purchases`) and fans it out to the endpoints that
//! take it, all in the consumer's transaction. One consumer for all of it, rather than one
//! each: every event is one broker delivery and one transaction.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::BillingEventReceived;
use prost::Message as _;

use crate::fan_out::FanOut;
use crate::intake::store::{self as received, ReceivedEvent};
use crate::{projection, purchases};

pub struct StoredEvents {
    pub fan_out: FanOut,
}

impl Handler for StoredEvents {
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
            let (stored, adopted) = match projection::project(tx, &stored).await? {
                Some(entity) => {
                    let attribution = purchases::attribute(tx, &stored, &entity).await?;
                    let stored = ReceivedEvent {
                        organization_id: attribution.organization_id,
                        ..stored
                    };
                    (stored, attribution.adopted)
                }
                None => {
                    let adopted = purchases::adopt_unfiled(tx, &stored).await?;
                    (stored, adopted)
                }
            };
            self.fan_out.fan_out(tx, &stored).await?;
            if let Some(organization) = &stored.organization_id {
                for adopted in &adopted {
                    self.fan_out
                        .fan_out_adopted(tx, adopted, organization)
                        .await?;
                }
            }
            Ok(())
        })
    }
}
