//! The `mailbox` group: `GET /api/dev/mailbox`, the newest mails of the mailer's log, for the
//! web app's dev mailbox. Not part of better-auth's protocol, so not under `/api/auth` nor in
//! its OpenAPI document. Mails carry live tokens, so it is served only when `DEV_MAILBOX` is on
//! (standalone mode) and only to a client connected over loopback, never through a proxy.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::request::Parts;
use axum::routing::get;
use gatehouse_proto::mailer::v1 as pb;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::reply::Reply;
use crate::state::AppState;
use gatehouse_kit::ids::iso as iso_millis;

/// Where the dev mailbox is served.
pub const PATH: &str = "/api/dev/mailbox";

pub fn router() -> Router<AppState> {
    Router::new().route(PATH, get(list))
}

#[derive(Deserialize)]
struct ListQuery {
    /// Only mails to this address.
    to: Option<String>,
    /// 1–100 (default 20).
    limit: Option<i32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MailView {
    id: String,
    to: String,
    kind: String,
    language: i32,
    subject: String,
    text: String,
    html: String,
    status: &'static str,
    attempts: i32,
    last_error: Option<String>,
    created_at: String,
    sent_at: Option<String>,
}

#[derive(Serialize)]
struct MailList {
    mails: Vec<MailView>,
}

async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListQuery>,
    request: Parts,
) -> Result<Reply, ApiError> {
    // Another host, or anything relayed by a proxy (even one on this host), gets the same 404
    // as when the mailbox is off.
    let loopback = request
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|ConnectInfo(addr)| addr.ip().is_loopback());
    let proxied = ["x-forwarded-for", "forwarded", "x-real-ip"]
        .iter()
        .any(|name| request.headers.contains_key(*name));
    if !state.config.dev_mailbox || !loopback || proxied {
        return Err(ApiError::NotFound);
    }
    let reply = state
        .mailbox
        .clone()
        .list_mails(pb::ListMailsRequest {
            limit: query.limit.unwrap_or(20),
            recipient: query.to.unwrap_or_default(),
            status: pb::MailStatus::Unspecified.into(),
        })
        .await?
        .into_inner();
    let mails = reply.mails.into_iter().map(view).collect();
    Ok(Reply::json(&MailList { mails }).no_store())
}

fn view(mail: pb::Mail) -> MailView {
    let status = match pb::MailStatus::try_from(mail.status) {
        Ok(pb::MailStatus::Queued) => "queued",
        Ok(pb::MailStatus::Sent) => "sent",
        Ok(pb::MailStatus::Failed) => "failed",
        _ => "unknown",
    };
    MailView {
        id: mail.id,
        to: mail.recipient,
        kind: mail.kind,
        language: mail.language,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
        status,
        attempts: mail.attempts,
        last_error: Some(mail.last_error).filter(|e| !e.is_empty()),
        created_at: iso_millis(mail.created_at_unix_ms),
        sent_at: (mail.sent_at_unix_ms > 0).then(|| iso_millis(mail.sent_at_unix_ms)),
    }
}
