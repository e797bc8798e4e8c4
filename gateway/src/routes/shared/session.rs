//! Starting a session, and issuing its cookies again after a change to it.

use axum::http::{HeaderValue, header};
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;

use crate::error::ApiError;
use crate::extract::{RequestMeta, Session};
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{SessionWithUser, SignInResponse};

/// A sign-in's answer (email or username): a new session, its cookies, and `url` plus
/// `Location` when the caller gave a `callbackURL`.
pub async fn signed_in(
    state: &AppState,
    meta: &RequestMeta,
    user: identity_pb::User,
    remember: bool,
    callback: Option<String>,
) -> Result<Reply, ApiError> {
    let data = start_session(state, meta, user, remember).await?;
    let mut reply = Reply::json(&SignInResponse {
        redirect: callback.is_some(),
        token: data.session.token.clone(),
        url: callback.clone(),
        user: data.user.clone(),
    });
    if let Some(location) = callback.and_then(|c| HeaderValue::from_str(&c).ok()) {
        reply
            .response
            .headers_mut()
            .insert(header::LOCATION, location);
    }
    reply.set_cookies(session_cookies::issue(state, meta, &data, remember));
    Ok(reply)
}

/// A new session for `user`, from this request's client.
pub async fn start_session(
    state: &AppState,
    meta: &RequestMeta,
    user: identity_pb::User,
    remember: bool,
) -> Result<SessionWithUser, ApiError> {
    let session = state
        .sessions
        .clone()
        .create_session(session_pb::CreateSessionRequest {
            user_id: user.id.clone(),
            ip_address: meta.client.recorded(),
            user_agent: meta.user_agent(),
            remember_me: remember,
            ..Default::default()
        })
        .await?
        .into_inner()
        .session
        .ok_or(base::FAILED_TO_CREATE_SESSION)?;
    Ok(SessionWithUser {
        session: session.into(),
        user: user.into(),
    })
}

/// The session cookies again, read back from the session service after a change to it.
pub async fn reissue(
    state: &AppState,
    meta: &RequestMeta,
    caller: &Session,
) -> Result<Vec<String>, ApiError> {
    let dont_remember = session_cookies::dont_remember(state, meta);
    let found = state
        .sessions
        .clone()
        .get_session(session_pb::GetSessionRequest {
            token: caller.session.token.clone(),
            disable_refresh: true,
        })
        .await?
        .into_inner();
    let (Some(session), Some(user)) = (found.session, found.user) else {
        return Err(base::UNAUTHORIZED.into());
    };
    let remember = session.remember_me && !dont_remember;
    let data = SessionWithUser {
        session: session.into(),
        user: user.into(),
    };
    Ok(session_cookies::issue(state, meta, &data, remember))
}

/// The caller reads their change back at once; the `user.updated` event evicts the cached
/// sessions everywhere too, so a failure here is only logged.
pub async fn forget_cached_user(state: &AppState, user_id: &str) {
    let evicted = state
        .sessions
        .clone()
        .evict_user(session_pb::EvictUserRequest {
            user_id: user_id.to_string(),
        })
        .await;
    if let Err(status) = evicted {
        tracing::warn!(%status, "could not evict the changed user's cached sessions; the event will");
    }
}
