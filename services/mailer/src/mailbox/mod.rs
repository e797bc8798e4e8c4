//! The mail log, read: `gatehouse.mailer.v1.MailboxService` (the web app's dev mailbox in
//! standalone mode, and operators looking for dead letters).

pub mod grpc;
pub mod store;

use gatehouse_kit::db::Db;

#[derive(Clone)]
pub struct Mailbox {
    pub db: Db,
}
