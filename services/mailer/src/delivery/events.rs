//! `mail.requested` (queue `mailer.mail-requests`): the mail is written in the recipient's
//! language and queued in the same transaction that records the event as handled, so a
//! request is never lost nor queued twice. Sending is the delivery loop's job: a request never
//! waits for SMTP.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Handler, HandlerFuture};
use gatehouse_kit::db::Tx;
use gatehouse_kit::ids;
use gatehouse_kit::language::Language;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{MailKind, MailRequested};
use prost::Message as _;
use tokio::sync::Notify;

use super::store::{self, NewMail};
use crate::render::{Content, Kind, Templates};

pub struct MailRequests {
    pub templates: Arc<Templates>,
    pub base_url: url::Url,
    /// Wakes the delivery loop.
    pub queued: Arc<Notify>,
}

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("unknown mail kind {0}")]
    Kind(i32),
    #[error("link_path must be a path starting with a single '/'")]
    LinkPath,
    #[error("no recipient")]
    Recipient,
}

impl Handler for MailRequests {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            if message.topic != MailRequested::TOPIC {
                tracing::debug!(topic = %message.topic, "not a mail request");
                return Ok(());
            }
            let request = MailRequested::decode(message.payload.as_slice())?;
            let content = self.content(request)?;
            let mail = self.templates.render(&content)?;
            store::insert(
                tx,
                &NewMail {
                    id: &message.id,
                    recipient: &content.email,
                    kind: content.kind.key(),
                    language: content.language.code(),
                    subject: &mail.subject,
                    text_body: &mail.text,
                    html_body: &mail.html,
                    now: ids::now(),
                },
            )
            .await?;
            // The row commits with the inbox entry just after this returns; the loop's next
            // look (at most its poll interval later) finds it either way.
            self.queued.notify_one();
            // The link carries a token: log which mail, never what it says.
            tracing::info!(mail_id = %message.id, kind = content.kind.key(), "mail queued");
            Ok(())
        })
    }
}

impl MailRequests {
    fn content(&self, request: MailRequested) -> Result<Content, RequestError> {
        let kind = match MailKind::try_from(request.kind) {
            Ok(MailKind::VerifyEmail) => Kind::VerifyEmail,
            Ok(MailKind::ResetPassword) => Kind::ResetPassword,
            Ok(MailKind::ConfirmEmailChange) => Kind::ConfirmEmailChange,
            Ok(MailKind::ConfirmAccountDeletion) => Kind::ConfirmAccountDeletion,
            Ok(MailKind::OrganizationInvitation) => Kind::OrganizationInvitation,
            Ok(MailKind::EndpointDisabled) => Kind::EndpointDisabled,
            Ok(MailKind::PasswordSetByAdmin) => Kind::PasswordSetByAdmin,
            Ok(MailKind::EmailChangedByAdmin) => Kind::EmailChangedByAdmin,
            Ok(MailKind::TwoFactorCode) => Kind::TwoFactorCode,
            Ok(MailKind::TwoFactorResetByAdmin) => Kind::TwoFactorResetByAdmin,
            Ok(MailKind::PasswordChanged) => Kind::PasswordChanged,
            Ok(MailKind::EmailChanged) => Kind::EmailChanged,
            Ok(MailKind::NewDeviceSignIn) => Kind::NewDeviceSignIn,
            Ok(MailKind::BannedByAdmin) => Kind::BannedByAdmin,
            Ok(MailKind::Unspecified) | Err(_) => return Err(RequestError::Kind(request.kind)),
        };
        if request.to.trim().is_empty() {
            return Err(RequestError::Recipient);
        }
        Ok(Content {
            kind,
            language: Language::or_default(request.language),
            name: request.name,
            email: request.to.trim().to_string(),
            link: absolute_link(&self.base_url, &request.link_path)?,
            expires_in: Duration::from_secs(u64::try_from(request.expires_in_seconds).unwrap_or(0)),
            params: request.params.into_iter().collect::<BTreeMap<_, _>>(),
        })
    }
}

/// `path` (with its query) on the base URL's origin, keeping a base path if the base URL has
/// one (`https://example.com/auth` + `/api/…`). Only a plain path is accepted: a request can
/// never make a mail link to another site.
fn absolute_link(base: &url::Url, path: &str) -> Result<url::Url, RequestError> {
    if !path.starts_with('/') || path.starts_with("//") || path.contains('\\') {
        return Err(RequestError::LinkPath);
    }
    let prefix = base.path().trim_end_matches('/');
    let joined = base
        .join(&format!("{prefix}{path}"))
        .map_err(|_| RequestError::LinkPath)?;
    if joined.origin() != base.origin() {
        return Err(RequestError::LinkPath);
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_stay_on_the_base_url() {
        let base = url::Url::parse("https://auth.example.com").unwrap();
        let link =
            absolute_link(&base, "/api/auth/verify-email?token=abc&callbackURL=%2F").unwrap();
        assert_eq!(
            link.as_str(),
            "https://auth.example.com/api/auth/verify-email?token=abc&callbackURL=%2F"
        );
        let nested = url::Url::parse("https://example.com/auth/").unwrap();
        assert_eq!(
            absolute_link(&nested, "/reset-password/tok")
                .unwrap()
                .as_str(),
            "https://example.com/auth/reset-password/tok"
        );
        for bad in [
            "https://evil.example/x",
            "//evil.example/x",
            "/\\evil.example",
            "relative",
            "",
        ] {
            assert!(absolute_link(&base, bad).is_err(), "{bad}");
        }
    }
}
