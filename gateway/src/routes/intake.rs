//! The `intake` group: `POST /api/billing/webhooks`, where the payments platform (Polar)
//! delivers its webhooks. Not better-auth's protocol, so not under `/api/auth`: no cookies, no
//! origin check, and no rate limit — a refused delivery is retried by the sender and counts
//! towards it disabling our endpoint (billing-webhooks reference §3). The body is read raw,
//! capped at [`MAX_BODY`], and handed whole, with the three Standard Webhooks headers, to the
//! billing-webhook service, which verifies and stores it before this answers 2xx.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use gatehouse_kit::errors::{base, billing};
use gatehouse_proto::billing_webhook::v1 as pb;
use serde::Serialize;

use crate::error::ApiError;
use crate::reply::Reply;
use crate::state::AppState;

/// Where the payments platform is told to deliver: `/api/billing/webhooks`.
pub const PATH: &str = "/webhooks";

/// The largest body taken in. The payments platform's biggest payloads (checkouts, which embed
/// products, prices and benefits) are about 12 kB (reference §4.3).
pub const MAX_BODY: usize = 1024 * 1024;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(PATH, post(receive))
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

#[derive(Serialize)]
struct Accepted {
    /// Our id of the stored event.
    id: String,
    /// The delivery's `webhook-id` had been received before; nothing was stored again.
    duplicate: bool,
}

/// 202 for a new event, 200 for one already stored; both are success to the sender.
async fn receive(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::from(billing::WEBHOOK_BODY_TOO_LARGE),
        _ => base::VALIDATION_ERROR
            .with_message(rejection.body_text())
            .into(),
    })?;
    // Passed on as received; the service decides what a malformed value means.
    let header = |name: &str| {
        headers
            .get(name)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            .unwrap_or_default()
    };
    let received = state
        .intake
        .clone()
        .receive(pb::ReceiveRequest {
            webhook_id: header("webhook-id"),
            webhook_timestamp: header("webhook-timestamp"),
            webhook_signature: header("webhook-signature"),
            body: body.to_vec(),
        })
        .await?
        .into_inner();
    let status = if received.duplicate {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    let reply = Reply::json(&Accepted {
        id: received.event_id,
        duplicate: received.duplicate,
    });
    Ok((status, reply).into_response())
}
