//! What the organization service does with identity's `user.deleted` (queue
//! `organization.user-events`): the user's memberships and team memberships go, and an
//! organization left without members is deleted with everything in it (`organization.deleted`,
//! so sessions that had it active lose it). All in the consumer's transaction.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{OrganizationDeleted, UserDeleted};
use prost::Message as _;

pub struct UserEvents;

impl Handler for UserEvents {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            if message.topic != UserDeleted::TOPIC {
                tracing::debug!(topic = %message.topic, "not an event this queue handles");
                return Ok(());
            }
            let user_id = UserDeleted::decode(message.payload.as_slice())?.user_id;
            let left = super::store::delete_for_user(tx, &user_id).await?;
            for organization_id in left {
                if super::store::count(&mut *tx, &organization_id).await? > 0 {
                    continue;
                }
                crate::organization::store::delete(tx, &organization_id).await?;
                tx.enqueue(&OutboxEvent::new(&OrganizationDeleted {
                    organization_id: organization_id.clone(),
                }))
                .await?;
                tracing::info!(%organization_id, "organization left without members deleted");
            }
            Ok(())
        })
    }
}
