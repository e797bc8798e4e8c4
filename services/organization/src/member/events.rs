//! What the organization service does with identity's user events (queue
//! `organization.user-events`), each in the consumer's transaction:
//! - `user.updated`: the copy of a member's user moves to the event's snapshot, if newer
//!   (`users.rs`); users who are no member are not copied.
//! - `user.deleted`: the user's memberships, team memberships and copy go; an organization
//!   left without members is deleted with everything in it (`organization.deleted`, so
//!   sessions that had it active lose it), and one left without an owner gets one
//!   (`rules::keep_an_owner`). Its organizations are locked first, in id order, as the owner
//!   rules lock them, so an owner stepping down at the same moment is decided either before
//!   or after, never beside it.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::service::BoxError;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{OrganizationDeleted, UserDeleted, UserUpdated};
use prost::Message as _;

pub struct UserEvents;

impl Handler for UserEvents {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            let payload = message.payload.as_slice();
            match message.topic.as_str() {
                UserUpdated::TOPIC => updated(tx, &UserUpdated::decode(payload)?).await,
                UserDeleted::TOPIC => deleted(tx, &UserDeleted::decode(payload)?.user_id).await,
                topic => {
                    tracing::debug!(%topic, "not an event this queue handles");
                    Ok(())
                }
            }
        })
    }
}

async fn updated(tx: &mut Tx, event: &UserUpdated) -> Result<(), BoxError> {
    // An identity from before the snapshot sends none: nothing to copy.
    if event.updated_at_unix_ms == 0 {
        return Ok(());
    }
    if super::users::apply(tx, event).await? {
        tracing::debug!(user_id = %event.user_id, "member's user copy updated");
    }
    Ok(())
}

async fn deleted(tx: &mut Tx, user_id: &str) -> Result<(), BoxError> {
    for organization_id in super::store::organization_ids_of(&mut *tx, user_id).await? {
        crate::organization::store::lock(tx, &organization_id).await?;
    }
    let left = super::store::delete_for_user(tx, user_id).await?;
    super::users::forget_unless_member(tx, user_id).await?;
    for organization_id in left {
        if super::store::count(&mut *tx, &organization_id).await? > 0 {
            if let Some(owner) = super::rules::keep_an_owner(tx, &organization_id).await? {
                tracing::info!(%organization_id, member_id = %owner.id, "owner left; a member promoted");
            }
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
}
