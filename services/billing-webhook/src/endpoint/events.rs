//! What the billing-webhook service does with the organization service's events (queue
//! `billing-webhook.organization-events`): a deleted organization's endpoints are removed, with
//! their deliveries and attempts, in the consumer's transaction. Nothing more is sent to them,
//! and no one is left who could list them.

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
            let removed = store::delete_of_organization(&mut *tx, &organization_id).await?;
            if removed > 0 {
                tracing::info!(%organization_id, endpoints = removed, "a deleted organization's endpoints removed");
            }
            Ok(())
        })
    }
}
