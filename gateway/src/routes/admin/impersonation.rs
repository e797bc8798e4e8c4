//! Impersonation: an admin signs in as another user for a while, and back. The admin's own
//! session waits meanwhile in the signed `admin_session` cookie ([`SavedAdminSession`]).

use axum::extract::State;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;

use super::users::UserIdBody;
use crate::error::ApiError;
use crate::extract::{BareSession, Input, NoInput, RequestMeta};
use crate::openapi::AdminErrors;
use crate::reply::Reply;
use crate::routes::shared::input::user_id;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::SessionWithUser;

/// The admin's own session while they impersonate someone, kept in the signed
/// `admin_session` cookie as `<token>:<"true" when the admin's own sign-in was not
/// remembered>`.
struct SavedAdminSession {
    token: String,
    dont_remember: bool,
}

impl SavedAdminSession {
    /// The `Set-Cookie` value that keeps it.
    fn cookie(&self, state: &AppState) -> String {
        let flag = if self.dont_remember { "true" } else { "" };
        let value = format!("{}:{flag}", self.token);
        state.cookies.set(
            &state.cookies.names.admin_session,
            &crate::cookies::sign(state.config.secret(), &value),
            Some(state.config.cookies.session_max_age.as_secs()),
        )
    }

    /// The saved session from the request's signed cookie, if there is one.
    fn read(state: &AppState, meta: &RequestMeta) -> Option<Self> {
        let value = meta
            .cookie(&state.cookies.names.admin_session)
            .and_then(|raw| crate::cookies::verify_any(&state.config.secrets, &raw))?;
        let (token, flag) = value.split_once(':')?;
        Some(Self {
            token: token.to_string(),
            dont_remember: flag == "true",
        })
    }

    /// The `Set-Cookie` value that removes it.
    fn expire(state: &AppState) -> String {
        state.cookies.expire(&state.cookies.names.admin_session)
    }
}

/// Signs the caller in as another user for a while (`user:impersonate`): a one-hour
/// session marked `impersonatedBy`; the caller's own session waits in `admin_session`.
#[utoipa::path(post, path = "/admin/impersonate-user", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SessionWithUser, description = "The impersonation session and its user; the cookies now carry it"), AdminErrors))]
pub(super) async fn impersonate_user(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<UserIdBody, BareSession>,
) -> Result<Reply, ApiError> {
    let admin = auth.0;
    let granted = state
        .admin
        .clone()
        .impersonate_user(identity_pb::ImpersonateUserRequest {
            actor_id: admin.user.id.clone(),
            user_id: user_id(&body.user_id),
        })
        .await?
        .into_inner();
    let target = granted.user.ok_or(base::USER_NOT_FOUND)?;
    let session = state
        .sessions
        .clone()
        .create_session(session_pb::CreateSessionRequest {
            user_id: target.id.clone(),
            ip_address: meta.client.recorded(),
            user_agent: meta.user_agent(),
            remember_me: false,
            impersonated_by: Some(admin.user.id.clone()),
            lifetime_seconds: Some(granted.session_lifetime_seconds),
        })
        .await?
        .into_inner()
        .session
        .ok_or(base::FAILED_TO_CREATE_SESSION)?;
    let data = SessionWithUser {
        session: session.into(),
        user: target.into(),
    };
    let saved = SavedAdminSession {
        token: admin.session.token.clone(),
        dont_remember: session_cookies::dont_remember(&state, &meta),
    };
    let mut reply = Reply::json(&data);
    reply.set_cookies(state.cookies.expire_session());
    reply.set_cookie(&saved.cookie(&state));
    reply.set_cookies(session_cookies::issue(&state, &meta, &data, false));
    Ok(reply)
}

/// Ends the impersonation and signs the admin back in to their own session.
#[utoipa::path(post, path = "/admin/stop-impersonating", tag = "admin", request_body(content = Option<NoInput>, content_type = "application/json"),
    responses((status = 200, body = SessionWithUser, description = "The admin's own session again"), AdminErrors))]
pub(super) async fn stop_impersonating(
    State(state): State<AppState>,
    Input { auth, meta, .. }: Input<NoInput, BareSession>,
) -> Result<Reply, ApiError> {
    let current = auth.0;
    let Some(admin_id) = current.session.impersonated_by.clone() else {
        return Err(Failure::message_only(400, "You are not impersonating anyone").into());
    };
    let admin_session_missing =
        || ApiError::from(Failure::message_only(500, "Failed to find admin session"));
    let SavedAdminSession {
        token: admin_token,
        dont_remember,
    } = SavedAdminSession::read(&state, &meta).ok_or_else(admin_session_missing)?;
    let found = state
        .sessions
        .clone()
        .get_session(session_pb::GetSessionRequest {
            token: admin_token,
            disable_refresh: true,
        })
        .await?
        .into_inner();
    let (Some(session), Some(user)) = (found.session, found.user) else {
        return Err(admin_session_missing());
    };
    if session.user_id != admin_id {
        return Err(admin_session_missing());
    }
    state
        .sessions
        .clone()
        .revoke_session(session_pb::RevokeSessionRequest {
            token: current.session.token,
            user_id: String::new(),
        })
        .await?;
    let remember = session.remember_me && !dont_remember;
    let data = SessionWithUser {
        session: session.into(),
        user: user.into(),
    };
    let mut reply = Reply::json(&data);
    // A remembered admin's `dont_remember` (the impersonation's) is expired by `issue`.
    reply.set_cookies(session_cookies::issue(&state, &meta, &data, remember));
    reply.set_cookie(&SavedAdminSession::expire(&state));
    Ok(reply)
}
