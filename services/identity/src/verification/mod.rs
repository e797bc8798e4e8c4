//! Links mailed to users (better-auth's verification values, protocol §4.4 and §7.5): email
//! verification, password reset, change of email and account deletion. A link is a random
//! token; only its SHA-256 is stored, so the table never yields a working link. A link and the
//! `mail.requested` event that carries it are written in the caller's transaction, so a link
//! exists exactly when its mail will go out.

pub mod new_link;
pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Tx};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::MailKind;

/// What a link is for; stored as its name, and each kind's tokens look like better-auth's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    VerifyEmail,
    ResetPassword,
    /// Sent to the current address of a verified user who asked to change it.
    ConfirmEmailChange,
    /// Sent to the new address; using it applies the change.
    VerifyNewEmail,
    DeleteAccount,
}

impl Purpose {
    pub const fn as_str(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => "verify-email",
            Purpose::ResetPassword => "reset-password",
            Purpose::ConfirmEmailChange => "change-email-confirmation",
            Purpose::VerifyNewEmail => "change-email-verification",
            Purpose::DeleteAccount => "delete-account",
        }
    }

    /// A new token: 24 characters `[A-Za-z0-9]` for a password reset, 32 `[0-9a-z]` for a
    /// deletion (better-auth's shapes), 32 `[A-Za-z0-9]` for the others.
    fn new_token(self) -> String {
        match self {
            Purpose::ResetPassword => ids::random_alphanumeric(24),
            Purpose::DeleteAccount => ids::random_from(b"0123456789abcdefghijklmnopqrstuvwxyz", 32),
            _ => ids::random_alphanumeric(32),
        }
    }

    fn mail_kind(self) -> MailKind {
        match self {
            Purpose::VerifyEmail | Purpose::VerifyNewEmail => MailKind::VerifyEmail,
            Purpose::ResetPassword => MailKind::ResetPassword,
            Purpose::ConfirmEmailChange => MailKind::ConfirmEmailChange,
            Purpose::DeleteAccount => MailKind::ConfirmAccountDeletion,
        }
    }
}

/// How a token is stored and looked up.
pub fn token_hash(token: &str) -> String {
    ids::sha256_hex(token)
}

/// A link about to be mailed: its row and its mail, written by [`Link::write`].
pub struct Link {
    id: String,
    token_hash: String,
    purpose: Purpose,
    user_id: String,
    email: String,
    new_email: Option<String>,
    expires_at: DateTime<Utc>,
    mail: OutboxEvent,
}

impl std::fmt::Debug for Link {
    // The mail carries the token: never in a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("purpose", &self.purpose)
            .field("user_id", &self.user_id)
            .finish_non_exhaustive()
    }
}

impl Link {
    /// Stores the link and queues its mail in `tx`.
    pub async fn write(&self, tx: &mut Tx) -> Result<(), DbError> {
        store::insert(tx, self).await?;
        tx.enqueue(&self.mail).await
    }
}
