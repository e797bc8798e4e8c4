//! `gatehouse.mailer.v1.MailboxService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::mailer::v1 as pb;
use gatehouse_proto::mailer::v1::mailbox_service_server::{MailboxService, MailboxServiceServer};
use tonic::{Request, Response, Status};

use super::Mailbox;
use super::store::{self, Filter, MailRow};
use crate::delivery::store::{HTML_BODY, TEXT_BODY, opened};
use gatehouse_kit::db::Db;

pub fn server(mailbox: Mailbox) -> MailboxServiceServer<Mailbox> {
    MailboxServiceServer::new(mailbox)
}

#[tonic::async_trait]
impl MailboxService for Mailbox {
    async fn list_mails(
        &self,
        request: Request<pb::ListMailsRequest>,
    ) -> Result<Response<pb::ListMailsResponse>, Status> {
        let r = request.into_inner();
        let limit = match r.limit {
            0 => 20,
            n @ 1..=100 => n.unsigned_abs().into(),
            _ => {
                return Err(base::VALIDATION_ERROR
                    .with_message("limit must be between 1 and 100")
                    .into());
            }
        };
        let status = match pb::MailStatus::try_from(r.status) {
            Ok(pb::MailStatus::Unspecified) => None,
            Ok(pb::MailStatus::Queued) => Some("queued"),
            Ok(pb::MailStatus::Sent) => Some("sent"),
            Ok(pb::MailStatus::Failed) => Some("failed"),
            Err(_) => return Err(base::VALIDATION_ERROR.with_message("unknown status").into()),
        };
        let recipient = Some(r.recipient.trim()).filter(|r| !r.is_empty());
        let rows = store::list(
            &self.db,
            &Filter {
                limit,
                recipient,
                status,
            },
        )
        .await
        .map_err(|error| {
            tracing::error!(%error, "reading the mail log");
            Status::from(base::INTERNAL_SERVER_ERROR)
        })?;
        Ok(Response::new(pb::ListMailsResponse {
            mails: rows
                .into_iter()
                .map(|row| to_proto(&self.db, row))
                .collect(),
        }))
    }
}

fn to_proto(db: &Db, row: MailRow) -> pb::Mail {
    // Sealed under another SERVICE_TOKEN: the mail is still listed, its bodies are not.
    let body =
        |context, body| opened(db, context, body).unwrap_or_else(|error| format!("({error})"));
    let status = match row.status.as_str() {
        "queued" => pb::MailStatus::Queued,
        "sent" => pb::MailStatus::Sent,
        "failed" => pb::MailStatus::Failed,
        _ => pb::MailStatus::Unspecified,
    };
    pb::Mail {
        id: row.id,
        recipient: row.recipient,
        kind: row.kind,
        language: row.language,
        subject: row.subject,
        text_body: body(TEXT_BODY, row.text_body),
        html_body: body(HTML_BODY, row.html_body),
        status: status.into(),
        attempts: row.attempts,
        last_error: row.last_error.unwrap_or_default(),
        created_at_unix_ms: row.created_at.timestamp_millis(),
        sent_at_unix_ms: row.sent_at.map_or(0, |t| t.timestamp_millis()),
    }
}
