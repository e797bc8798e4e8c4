//! The `mailbox` group: `GET /api/dev/mailbox`, the newest mails of the mailer's log, for the
//! web app's dev mailbox. Not part of better-auth's protocol, so not under `/api/auth` nor in
//! its OpenAPI document. Mails carry live tokens, so it is served only when `DEV_MAILBOX` is on
//! (the run command sets it; off by default in every mode), only to a client connected over
//! loopback, never through a proxy, and only to a request that names a loopback host: a web
//! page that rebinds its own name to 127.0.0.1 (DNS rebinding) sends its own name as `Host`,
//! and so does a same-host reverse proxy that adds no forwarding header.

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
    let named_host = request
        .headers
        .get(axum::http::header::HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| request.uri.authority().map(|authority| authority.as_str()));
    if !state.config.dev_mailbox
        || !loopback
        || proxied
        || !named_host.is_some_and(is_loopback_host)
    {
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

/// Whether a `Host` value (port allowed) names this machine: `localhost` or a name under
/// `.localhost` (browsers resolve those themselves, never through DNS), or a loopback address.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        // An IPv6 literal: `[::1]` or `[::1]:3000`.
        Some(rest) => rest.split_once(']').map_or(rest, |(address, _)| address),
        None => host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                name
            } else {
                host
            }
        }),
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
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

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn only_names_of_this_machine_are_loopback_hosts() {
        for host in [
            "localhost",
            "localhost:3000",
            "LOCALHOST.",
            "app.localhost:8080",
            "127.0.0.1",
            "127.0.0.1:3000",
            "127.9.9.9:1",
            "[::1]",
            "[::1]:3000",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "rebind.attacker.example",
            "rebind.attacker.example:3000",
            "localhost.attacker.example",
            "127.0.0.1.nip.io",
            "10.0.0.5:3000",
            "[2001:db8::1]:3000",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
