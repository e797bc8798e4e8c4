//! What identity does with the organization service's events (queue
//! `identity.organization-events`): a deleted organization's API keys are deleted, each with its
//! `api-key.revoked`, in the consumer's transaction.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::OrganizationDeleted;
use prost::Message as _;

use super::store;

pub struct OrganizationEvents;

impl Handler for OrganizationEvents {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            if message.topic != OrganizationDeleted::TOPIC {
                tracing::debug!(topic = %message.topic, "not an event this queue handles");
                return Ok(());
            }
            let organization_id =
                OrganizationDeleted::decode(message.payload.as_slice())?.organization_id;
            store::delete_owned(tx, &organization_id).await?;
            Ok(())
        })
    }
}
