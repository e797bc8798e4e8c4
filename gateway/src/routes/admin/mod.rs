//! The `admin` group (better-auth's admin plugin, §10): `/admin/*`
//! (`gatehouse.identity.v1.AdminService`). Every route needs a session, else 401 with an empty
//! body; whether the caller may act is identity's answer (read from its table on every call),
//! refused with the route's `YOU_ARE_NOT_ALLOWED_TO_…` code, and an action on another admin by
//! anyone but a super-admin with its `YOU_CANNOT_…_ADMINS` code. What ends sessions (ban,
//! removal, a password or email an admin set) also ends them here at once; the events end them
//! everywhere else.

mod impersonation;
mod list_users;
mod permission;
mod sessions;
mod users;

use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::BareSession;
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::User;

pub fn router() -> Group {
    let p = Policy::DEFAULT;
    Group::new()
        .route(route!(users::create_user), p)
        .route(route!(list_users::list_users), p)
        .route(route!(users::get_user), p)
        .route(route!(users::set_role), p)
        .route(route!(users::update_user), p)
        .route(route!(users::ban_user), p)
        .route(route!(users::unban_user), p)
        .route(route!(impersonation::impersonate_user), p)
        .route(route!(impersonation::stop_impersonating), p)
        .route(route!(sessions::list_user_sessions), p)
        .route(route!(sessions::revoke_user_session), p)
        .route(route!(sessions::revoke_user_sessions), p)
        .route(route!(users::remove_user), p)
        .route(route!(users::set_user_password), p)
        .route(route!(users::reset_two_factor), p)
        .route(route!(permission::has_permission), p)
}

#[derive(Serialize, ToSchema)]
pub struct UserResponse {
    user: User,
}

#[derive(Serialize, ToSchema)]
pub struct SuccessResponse {
    success: bool,
}

pub(super) const SUCCESS: SuccessResponse = SuccessResponse { success: true };

pub(super) fn user_reply(user: Option<identity_pb::User>) -> Result<Reply, ApiError> {
    let user = user.ok_or(base::USER_NOT_FOUND)?;
    Ok(Reply::json(&UserResponse { user: user.into() }))
}

/// Ends every session of `user_id` now (the user's ban or removal, a password or email an admin
/// set); the event does it too.
pub(super) async fn end_sessions(state: &AppState, user_id: &str) -> Result<(), ApiError> {
    state
        .sessions
        .clone()
        .revoke_user_sessions(session_pb::RevokeUserSessionsRequest {
            user_id: user_id.to_string(),
            except_token: None,
        })
        .await?;
    Ok(())
}

/// Asks identity whether the caller holds `permissions`, refusing with `refusal`, and may act
/// on `target` (another admin is for super-admins only).
pub(super) async fn authorize(
    state: &AppState,
    caller: &BareSession,
    permissions: Value,
    refusal: gatehouse_kit::errors::ErrorCode,
    target: Option<String>,
) -> Result<(), ApiError> {
    state
        .admin
        .clone()
        .authorize(identity_pb::AuthorizeRequest {
            actor_id: caller.0.user.id.clone(),
            permissions_json: permissions.to_string(),
            refusal: refusal.code().to_string(),
            target_user_id: target,
        })
        .await?;
    Ok(())
}

/// The reply to a change that ended the target's sessions: when the caller changed themselves,
/// their own session went too, and its cookies are expired.
pub(super) fn ended_sessions_reply(
    state: &AppState,
    caller: &BareSession,
    target: &str,
    mut reply: Reply,
) -> Reply {
    if caller.0.user.id == target {
        reply.set_cookies(state.cookies.expire_session());
    }
    reply
}
