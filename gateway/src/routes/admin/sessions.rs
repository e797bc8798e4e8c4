//! A user's sessions as an admin sees them: listed and revoked.

use axum::extract::State;
use gatehouse_kit::errors::admin as codes;
use gatehouse_proto::session::v1 as session_pb;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::users::UserIdBody;
use super::{SUCCESS, SuccessResponse, authorize, end_sessions};
use crate::error::ApiError;
use crate::extract::{BareSession, Input};
use crate::openapi::AdminErrors;
use crate::reply::Reply;
use crate::routes::shared::input::user_id;
use crate::state::AppState;
use crate::wire::Session;

#[derive(Serialize, ToSchema)]
pub struct SessionsResponse {
    sessions: Vec<Session>,
}

/// Every session row of a user, expired and impersonation ones too (`session:list`).
#[utoipa::path(post, path = "/admin/list-user-sessions", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SessionsResponse, description = "The user's sessions"), AdminErrors))]
pub(super) async fn list_user_sessions(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UserIdBody, BareSession>,
) -> Result<Reply, ApiError> {
    authorize(
        &state,
        &auth,
        json!({"session": ["list"]}),
        codes::YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS,
        None,
    )
    .await?;
    let sessions = state
        .sessions
        .clone()
        .list_sessions(session_pb::ListSessionsRequest {
            user_id: user_id(&body.user_id),
            all: true,
        })
        .await?
        .into_inner()
        .sessions;
    Ok(Reply::json(&SessionsResponse {
        sessions: sessions.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionTokenBody {
    #[schema(max_length = 256)]
    session_token: String,
}

/// Ends one session of any user (`session:revoke`); another admin's only for a super-admin.
#[utoipa::path(post, path = "/admin/revoke-user-session", tag = "admin", request_body = SessionTokenBody,
    responses((status = 200, body = SuccessResponse, description = "`{\"success\": true}`"), AdminErrors))]
pub(super) async fn revoke_user_session(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<SessionTokenBody, BareSession>,
) -> Result<Reply, ApiError> {
    let (revoke, refusal) = (
        json!({"session": ["revoke"]}),
        codes::YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS,
    );
    authorize(&state, &auth, revoke.clone(), refusal, None).await?;
    // Then whose session it is decides whether the caller may end it (looked up only for a
    // caller who may revoke sessions at all); an unknown or expired token is nobody's.
    let owner = state
        .sessions
        .clone()
        .get_session(session_pb::GetSessionRequest {
            token: body.session_token.clone(),
            disable_refresh: true,
        })
        .await?
        .into_inner()
        .session
        .map(|session| session.user_id);
    if let Some(owner) = &owner {
        authorize(&state, &auth, revoke, refusal, Some(owner.clone())).await?;
    }
    state
        .sessions
        .clone()
        .revoke_session(session_pb::RevokeSessionRequest {
            token: body.session_token,
            user_id: owner.unwrap_or_default(),
        })
        .await?;
    Ok(Reply::json(&SUCCESS))
}

/// Ends every session of a user (`session:revoke`); another admin's only for a super-admin.
#[utoipa::path(post, path = "/admin/revoke-user-sessions", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SuccessResponse, description = "`{\"success\": true}`"), AdminErrors))]
pub(super) async fn revoke_user_sessions(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UserIdBody, BareSession>,
) -> Result<Reply, ApiError> {
    let target = user_id(&body.user_id);
    authorize(
        &state,
        &auth,
        json!({"session": ["revoke"]}),
        codes::YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS,
        Some(target.clone()),
    )
    .await?;
    end_sessions(&state, &target).await?;
    Ok(Reply::json(&SUCCESS))
}
