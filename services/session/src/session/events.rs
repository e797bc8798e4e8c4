//! What the session service does with other services' events. Identity's user events (queue
//! `session.user-events`): a changed user's cached sessions are dropped, so the next
//! `get-session` reads the user afresh; the sessions of a user who was deleted or banned, or whose
//! password or email an admin set (`user.credentials-changed`), are deleted (and a deleted
//! user's known devices). The
//! organization service's `organization.deleted` and `team.removed` (queue
//! `session.organization-events`): sessions that had it active lose it. A cache that cannot be reached fails the event, which
//! is then retried.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{
    OrganizationDeleted, TeamRemoved, UserBanned, UserCredentialsChanged, UserDeleted, UserUpdated,
};
use prost::Message as _;

use super::cache::SessionCache;
use super::store;

pub struct UserEvents {
    pub cache: SessionCache,
}

impl Handler for UserEvents {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            match message.topic.as_str() {
                UserUpdated::TOPIC => {
                    let event = UserUpdated::decode(message.payload.as_slice())?;
                    for token in store::tokens_of(tx, &event.user_id).await? {
                        self.cache.evict(&token).await?;
                    }
                }
                UserDeleted::TOPIC | UserBanned::TOPIC | UserCredentialsChanged::TOPIC => {
                    let payload = message.payload.as_slice();
                    let user_id = match message.topic.as_str() {
                        UserDeleted::TOPIC => UserDeleted::decode(payload)?.user_id,
                        UserBanned::TOPIC => UserBanned::decode(payload)?.user_id,
                        _ => UserCredentialsChanged::decode(payload)?.user_id,
                    };
                    for token in store::delete_for_user(tx, &user_id).await? {
                        self.cache.try_bury(&token).await?;
                    }
                    if message.topic == UserDeleted::TOPIC {
                        store::forget_devices(tx, &user_id).await?;
                    }
                }
                other => tracing::debug!(topic = other, "not a user event this queue handles"),
            }
            Ok(())
        })
    }
}

pub struct OrganizationEvents {
    pub cache: SessionCache,
}

impl Handler for OrganizationEvents {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            let payload = message.payload.as_slice();
            let tokens = match message.topic.as_str() {
                OrganizationDeleted::TOPIC => {
                    let event = OrganizationDeleted::decode(payload)?;
                    store::forget_organization(tx, &event.organization_id).await?
                }
                TeamRemoved::TOPIC => {
                    store::forget_team(tx, &TeamRemoved::decode(payload)?.team_id).await?
                }
                other => {
                    tracing::debug!(topic = other, "not an event this queue handles");
                    return Ok(());
                }
            };
            for token in tokens {
                self.cache.evict(&token).await?;
            }
            Ok(())
        })
    }
}
