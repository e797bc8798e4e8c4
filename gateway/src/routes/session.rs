//! `GET /get-session` and `POST /sign-out`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use gatehouse_kit::ErrorCode;
use gatehouse_proto::session::v1 as session_pb;

use super::{Meta, Reply};
use crate::body;
use crate::cookie_cache;
use crate::cookies;
use crate::error::ApiError;
use crate::origin;
use crate::state::AppState;
use crate::wire::SessionWithUser;

/// get-session answers are never cached by browsers or proxies.
fn no_store(mut reply: Reply) -> Response {
    let headers = reply.response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    reply.into_response()
}

/// better-auth's algorithm (§6.3): `null` without a valid cookie; the cookie cache when it is
/// on and valid; otherwise the session service, which slides the expiry when due.
pub async fn get_session(State(state): State<AppState>, meta: Meta) -> Result<Response, ApiError> {
    let Some(token) = state.session_token(&meta) else {
        return Ok(no_store(Reply::json(&serde_json::Value::Null)));
    };
    let names = &state.cookies.names;
    let mut expire_cache_cookie = false;
    let cache_cookie = (state.config.cookies.cache_enabled
        && !meta.query_flag("disableCookieCache"))
    .then(|| meta.cookie(&names.session_data))
    .flatten();
    if let Some(raw) = cache_cookie {
        let now = gatehouse_kit::ids::now().timestamp_millis();
        match cookie_cache::decode(&state.config.secret, &raw, &token, now) {
            Some(body) => return Ok(no_store(Reply::raw_json(body))),
            None => expire_cache_cookie = true,
        }
    }
    let dont_remember = meta
        .cookie(&names.dont_remember)
        .and_then(|raw| cookies::verify(&state.config.secret, &raw))
        .is_some_and(|v| v == "true");
    let found = state
        .sessions
        .clone()
        .get_session(session_pb::GetSessionRequest {
            token,
            disable_refresh: dont_remember || meta.query_flag("disableRefresh"),
        })
        .await?
        .into_inner();
    let (Some(session), Some(user)) = (found.session, found.user) else {
        let mut reply = Reply::json(&serde_json::Value::Null);
        for cookie in state.cookies.expire_session() {
            reply.set_cookie(&cookie);
        }
        return Ok(no_store(reply));
    };
    let remember = session.remember_me && !dont_remember;
    let data = SessionWithUser {
        session: session.into(),
        user: user.into(),
    };
    let mut reply = Reply::json(&data);
    if expire_cache_cookie {
        reply.set_cookie(&state.cookies.expire(&names.session_data));
    }
    if found.refreshed {
        state.set_session_cookies(&mut reply, &meta, &data, remember);
    } else {
        state.set_cookie_cache(&mut reply, &data, remember);
    }
    Ok(no_store(reply))
}

/// POST is only for deferred refresh, which this server does not use.
pub async fn post_get_session() -> ApiError {
    ApiError::Code(ErrorCode::MethodNotAllowedDeferSessionRequired)
}

pub async fn sign_out(
    State(state): State<AppState>,
    meta: Meta,
    bytes: Bytes,
) -> Result<Reply, ApiError> {
    let body = body::parse(&meta.headers, &bytes, false)?;
    origin::check_request(&meta.headers, &state.trusted, false)?;
    body::check_redirect_fields(body.as_ref(), meta.query("callbackURL"), &state.trusted)?;
    if let Some(token) = state.session_token(&meta) {
        state
            .sessions
            .clone()
            .revoke_session(session_pb::RevokeSessionRequest { token })
            .await?;
    }
    let mut reply = Reply::json(&serde_json::json!({ "success": true }));
    for cookie in state.cookies.expire_session() {
        reply.set_cookie(&cookie);
    }
    Ok(reply)
}
