//! The `session` group: `GET /get-session`, `POST /sign-out`, `GET /list-sessions`,
//! `POST /revoke-session`, `/revoke-sessions`, `/revoke-other-sessions`
//! (`gatehouse.session.v1.SessionService`).

use axum::extract::State;
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::Deserialize;
use utoipa::ToSchema;

use super::Group;
use crate::cookie_cache;
use crate::error::ApiError;
use crate::extract::{FreshSession, Input, NoInput, RequestMeta, Session as SignedIn};
use crate::openapi::{BodyErrors, ErrorBody, QueryErrors};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{Session, SessionWithUser, StatusResponse};

pub fn router() -> Group {
    Group::new()
        .route(route!(get_session, post_get_session), Policy::DEFAULT)
        .route(route!(sign_out), Policy::DEFAULT)
        .route(route!(list_sessions), Policy::DEFAULT)
        .route(route!(revoke_session), Policy::DEFAULT)
        .route(route!(revoke_sessions), Policy::DEFAULT)
        .route(route!(revoke_other_sessions), Policy::DEFAULT)
}

/// The signed-in session and its user, or `null`.
///
/// better-auth's algorithm (§6.3): `null` without a valid cookie; the cookie cache when it is
/// on and valid; otherwise the session service, which slides the expiry when due.
#[utoipa::path(get, path = "/get-session", tag = "session",
    params(("disableCookieCache" = Option<String>, Query, description = "Read the session service even when the cookie cache is valid: any value but an empty one (`true`) turns it on, as better-auth reads it"),
           ("disableRefresh" = Option<String>, Query, description = "Do not slide the session's expiry: any value but an empty one (`true`) turns it on")),
    responses((status = 200, body = Option<SessionWithUser>, description = "The session and its user, or `null` when signed out"), (status = 429, body = ErrorBody, description = "`TOO_MANY_REQUESTS`"), (status = 503, body = ErrorBody, description = "`SERVICE_UNAVAILABLE`")))]
async fn get_session(State(state): State<AppState>, meta: RequestMeta) -> Result<Reply, ApiError> {
    // A key's session (API_KEY_SESSIONS): made from the key, no cookies.
    if let Some(key) = crate::extract::api_key::presented(&state, &meta) {
        let caller = crate::extract::api_key::session(&state, &meta, key).await?;
        let data = SessionWithUser {
            session: caller.session.into(),
            user: caller.user.into(),
        };
        let mut reply = Reply::json(&data);
        super::token::auth_header(&state, &mut reply, &data.user).await;
        return Ok(reply.no_store());
    }
    let Some(token) = session_cookies::token(&state, &meta) else {
        return Ok(Reply::json(&serde_json::Value::Null).no_store());
    };
    let names = &state.cookies.names;
    let mut expire_cache_cookie = false;
    let cache_cookie = (state.config.cookies.cache_enabled
        && !meta.query_flag("disableCookieCache"))
    .then(|| meta.cookie(&names.session_data))
    .flatten();
    if let Some(raw) = cache_cookie {
        let now = gatehouse_kit::ids::now().timestamp_millis();
        match cookie_cache::decode(state.config.secret(), &raw, &token, now) {
            Some(body) => {
                let user = state
                    .config
                    .tokens
                    .set_auth_header
                    .then(|| serde_json::from_str::<serde_json::Value>(&body).ok())
                    .flatten()
                    .map(|mut data| data["user"].take());
                let mut reply = Reply::raw_json(body);
                if let Some(user) = user {
                    super::token::auth_header(&state, &mut reply, user).await;
                }
                return Ok(reply.no_store());
            }
            None => expire_cache_cookie = true,
        }
    }
    let dont_remember = session_cookies::dont_remember(&state, &meta);
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
        reply.set_cookies(state.cookies.expire_session());
        return Ok(reply.no_store());
    };
    let remember = session.remember_me && !dont_remember;
    let data = SessionWithUser {
        session: session.into(),
        user: user.into(),
    };
    let mut reply = Reply::json(&data);
    super::token::auth_header(&state, &mut reply, &data.user).await;
    if expire_cache_cookie {
        reply.set_cookie(&state.cookies.expire(&names.session_data));
    }
    if found.refreshed {
        reply.set_cookies(session_cookies::issue(&state, &meta, &data, remember));
    } else {
        reply.set_cookies(session_cookies::cache(&state, &data, remember));
    }
    Ok(reply.no_store())
}

/// Deferred session refresh, which this server does not use: always 405.
#[utoipa::path(post, path = "/get-session", tag = "session",
    responses((status = 405, body = ErrorBody, description = "`METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED`")))]
async fn post_get_session() -> ApiError {
    base::METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED.into()
}

/// Only used by OIDC RP-initiated logout (social sign-in); validated and documented now.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct SignOutBody {
    /// Checked like every redirect target; used by OIDC logout.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
    disable_redirect: Option<bool>,
    #[schema(max_length = 2048)]
    state: Option<String>,
}

#[derive(serde::Serialize, ToSchema)]
pub struct SignOutResponse {
    success: bool,
}

/// Ends the caller's session (if any) and clears its cookies.
#[utoipa::path(post, path = "/sign-out", tag = "session", request_body(content = Option<SignOutBody>, content_type = "application/json"),
    responses((status = 200, body = SignOutResponse, description = "Signed out; the session cookies are cleared"), BodyErrors))]
async fn sign_out(
    State(state): State<AppState>,
    Input { meta, .. }: Input<SignOutBody>,
) -> Result<Reply, ApiError> {
    if let Some(token) = session_cookies::token(&state, &meta) {
        state
            .sessions
            .clone()
            .revoke_session(session_pb::RevokeSessionRequest {
                token,
                user_id: String::new(),
            })
            .await?;
    }
    let mut reply = Reply::json(&SignOutResponse { success: true });
    reply.set_cookies(state.cookies.expire_session());
    // Signing out of an impersonation forgets the admin's own session token too.
    if meta.cookie(&state.cookies.names.admin_session).is_some() {
        reply.set_cookie(&state.cookies.expire(&state.cookies.names.admin_session));
    }
    Ok(reply)
}

/// The caller's unexpired sessions (each with its raw token). Requires a fresh session.
#[utoipa::path(get, path = "/list-sessions", tag = "session",
    responses((status = 200, body = Vec<Session>, description = "The caller's unexpired sessions"), QueryErrors))]
async fn list_sessions(
    State(state): State<AppState>,
    Input {
        auth: FreshSession(caller),
        ..
    }: Input<NoInput, FreshSession>,
) -> Result<Reply, ApiError> {
    let sessions = state
        .sessions
        .clone()
        .list_sessions(session_pb::ListSessionsRequest {
            user_id: caller.user.id,
            all: false,
        })
        .await?
        .into_inner()
        .sessions;
    let sessions: Vec<Session> = sessions.into_iter().map(Into::into).collect();
    Ok(Reply::json(&sessions))
}

#[derive(Deserialize, ToSchema)]
pub struct RevokeSessionBody {
    /// The token of one of the caller's sessions (as `list-sessions` shows it).
    #[schema(max_length = 256)]
    token: String,
}

/// A reply of `{"status": true}` that also clears the session cookies when the caller's own
/// session is among those that ended (its cookie would only be refused from now on).
fn status_reply(state: &AppState, own_session_ended: bool) -> Reply {
    let mut reply = Reply::json(&StatusResponse { status: true });
    if own_session_ended {
        reply.set_cookies(state.cookies.expire_session());
    }
    reply
}

/// Ends one of the caller's sessions. Another user's token, or an unknown one, changes nothing
/// and answers the same.
#[utoipa::path(post, path = "/revoke-session", tag = "session", request_body = RevokeSessionBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`; the session cookies are cleared when the caller's own session was revoked"), BodyErrors))]
async fn revoke_session(
    State(state): State<AppState>,
    Input {
        body, auth: caller, ..
    }: Input<RevokeSessionBody, SignedIn>,
) -> Result<Reply, ApiError> {
    let own = body.token == caller.session.token;
    state
        .sessions
        .clone()
        .revoke_session(session_pb::RevokeSessionRequest {
            token: body.token,
            user_id: caller.user.id,
        })
        .await?;
    Ok(status_reply(&state, own))
}

/// Ends every session of the caller, the current one included, and clears its cookies.
#[utoipa::path(post, path = "/revoke-sessions", tag = "session", request_body(content = Option<NoInput>, content_type = "application/json"),
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`; every session ended and the cookies cleared"), BodyErrors))]
async fn revoke_sessions(
    State(state): State<AppState>,
    Input {
        auth: caller, meta, ..
    }: Input<NoInput, SignedIn>,
) -> Result<Reply, ApiError> {
    // Signed out everywhere means no browser is trusted to skip the second factor either.
    state
        .two_factor
        .clone()
        .forget_trusted_devices(identity_pb::ForgetTrustedDevicesRequest {
            user_id: caller.user.id.clone(),
            kept: None,
        })
        .await?;
    revoke_all(&state, caller.user.id, None).await?;
    let mut reply = status_reply(&state, true);
    if meta.cookie(&state.cookies.names.trust_device).is_some() {
        reply.set_cookie(&state.cookies.expire(&state.cookies.names.trust_device));
    }
    Ok(reply)
}

/// Ends every session of the caller but the current one.
#[utoipa::path(post, path = "/revoke-other-sessions", tag = "session", request_body(content = Option<NoInput>, content_type = "application/json"),
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`; only the current session remains"), BodyErrors))]
async fn revoke_other_sessions(
    State(state): State<AppState>,
    Input {
        auth: caller, meta, ..
    }: Input<NoInput, SignedIn>,
) -> Result<Reply, ApiError> {
    // The other browsers lose their trust too; this one keeps its own.
    let kept = meta
        .cookie(&state.cookies.names.trust_device)
        .and_then(|raw| super::two_factor::trusted_identifier(&state, &raw, &caller.user.id));
    state
        .two_factor
        .clone()
        .forget_trusted_devices(identity_pb::ForgetTrustedDevicesRequest {
            user_id: caller.user.id.clone(),
            kept,
        })
        .await?;
    revoke_all(&state, caller.user.id, Some(caller.session.token)).await?;
    Ok(status_reply(&state, false))
}

async fn revoke_all(
    state: &AppState,
    user_id: String,
    except_token: Option<String>,
) -> Result<(), ApiError> {
    state
        .sessions
        .clone()
        .revoke_user_sessions(session_pb::RevokeUserSessionsRequest {
            user_id,
            except_token,
        })
        .await?;
    Ok(())
}
