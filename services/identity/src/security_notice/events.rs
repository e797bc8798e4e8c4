//! What identity does with the session service's events (queue `identity.session-events`): a
//! sign-in from a device new to the account mails its user (unless `NEW_DEVICE_MAIL=false`),
//! in the consumer's transaction.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::SessionNewDevice;
use prost::Message as _;

pub struct SessionEvents {
    /// `NEW_DEVICE_MAIL`.
    pub mail_new_devices: bool,
}

impl Handler for SessionEvents {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            if message.topic != SessionNewDevice::TOPIC {
                tracing::debug!(topic = %message.topic, "not an event this queue handles");
                return Ok(());
            }
            if !self.mail_new_devices {
                return Ok(());
            }
            let event = SessionNewDevice::decode(message.payload.as_slice())?;
            // Gone since (deleted in between): nobody to tell.
            let Some(user) = crate::user::store::get(&mut *tx, &event.user_id).await? else {
                return Ok(());
            };
            tx.enqueue(&super::new_device(&user, &event.device, &event.ip_address))
                .await?;
            tracing::info!(user_id = %user.id, "new device's sign-in mailed");
            Ok(())
        })
    }
}
