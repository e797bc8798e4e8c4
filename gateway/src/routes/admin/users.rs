//! Creating, reading, changing, banning and removing users, and setting their roles and
//! passwords.

use axum::extract::State;
use gatehouse_kit::errors::base;
use gatehouse_kit::validate::one_or_many;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{
    SUCCESS, SuccessResponse, UserResponse, end_sessions, ended_sessions_reply, user_reply,
};
use crate::error::ApiError;
use crate::extract::{BareSession, Input};
use crate::openapi::AdminErrors;
use crate::reply::Reply;
use crate::routes::shared::input::user_id;
use crate::routes::shared::session::forget_cached_user;
use crate::state::AppState;
use crate::wire::{StatusResponse, User};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateUserBody {
    /// Checked by the service (`INVALID_EMAIL`), as better-auth does.
    #[schema(max_length = 254)]
    email: String,
    /// Omitted: no credential account.
    password: Option<String>,
    #[schema(max_length = 255, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    name: String,
    /// A role or a list of roles.
    #[schema(value_type = Option<RoleValue>, inline)]
    role: Option<Value>,
    /// More user fields (`emailVerified`, `image`, `username`, `banned`, …).
    data: Option<serde_json::Map<String, Value>>,
}

/// Creates a user (`user:create`; `user:set-role` too when a role is given).
#[utoipa::path(post, path = "/admin/create-user", tag = "admin", request_body = CreateUserBody,
    responses((status = 200, body = UserResponse, description = "The new user"), AdminErrors))]
pub(super) async fn create_user(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<CreateUserBody, BareSession>,
) -> Result<Reply, ApiError> {
    let roles = body
        .role
        .as_ref()
        .map(|role| one_or_many("role", role))
        .transpose()?;
    let created = state
        .admin
        .clone()
        .create_user(identity_pb::CreateUserRequest {
            actor_id: auth.0.user.id,
            email: body.email,
            password: body.password,
            name: body.name,
            has_roles: roles.is_some(),
            roles: roles.unwrap_or_default(),
            data_json: Value::Object(body.data.unwrap_or_default()).to_string(),
        })
        .await?
        .into_inner();
    user_reply(created.user)
}

#[derive(Deserialize, ToSchema)]
pub struct GetUserQuery {
    #[schema(max_length = 256)]
    id: String,
}

/// One user (`user:get`): the bare user object.
#[utoipa::path(get, path = "/admin/get-user", tag = "admin",
    params(("id" = String, Query, description = "The user's id")),
    responses((status = 200, body = User, description = "The user"), AdminErrors))]
pub(super) async fn get_user(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<GetUserQuery, BareSession>,
) -> Result<Reply, ApiError> {
    let found = state
        .admin
        .clone()
        .inspect_user(identity_pb::InspectUserRequest {
            actor_id: auth.0.user.id,
            user_id: body.id,
        })
        .await?
        .into_inner()
        .user
        .ok_or(base::USER_NOT_FOUND)?;
    Ok(Reply::json(&User::from(found)))
}

/// `role`: a role or a list of roles (stored comma-separated).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetRoleBody {
    #[schema(value_type = Value)]
    user_id: Value,
    #[schema(value_type = RoleValue, inline)]
    role: Value,
}

/// A role, or a list of roles.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum RoleValue {
    One(String),
    Several(Vec<String>),
}

/// Sets a user's roles (`user:set-role`).
#[utoipa::path(post, path = "/admin/set-role", tag = "admin", request_body = SetRoleBody,
    responses((status = 200, body = UserResponse, description = "The user with the new roles"), AdminErrors))]
pub(super) async fn set_role(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<SetRoleBody, BareSession>,
) -> Result<Reply, ApiError> {
    let roles = one_or_many("role", &body.role)?;
    let target = user_id(&body.user_id);
    let changed = state
        .admin
        .clone()
        .set_role(identity_pb::SetRoleRequest {
            actor_id: auth.0.user.id,
            user_id: target.clone(),
            roles,
        })
        .await?
        .into_inner();
    forget_cached_user(&state, &target).await;
    user_reply(changed.user)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUpdateUserBody {
    #[schema(value_type = Value)]
    user_id: Value,
    #[schema(value_type = AdminUserData, inline)]
    data: serde_json::Map<String, Value>,
}

/// The fields to set, better-auth's names (`name`, `email`, `role`, `banned`, …): at least
/// one; the service judges each.
#[derive(Deserialize, ToSchema)]
#[schema(min_properties = 1)]
#[allow(dead_code)]
pub struct AdminUserData {
    #[schema(max_length = 255, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    name: Option<String>,
    #[serde(flatten)]
    other: std::collections::HashMap<String, Value>,
}

/// Sets any of a user's fields (`user:update`, and the permission each field needs).
#[utoipa::path(post, path = "/admin/update-user", tag = "admin", operation_id = "admin_update_user", request_body = AdminUpdateUserBody,
    responses((status = 200, body = User, description = "The updated user (bare)"), AdminErrors))]
pub(super) async fn update_user(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<AdminUpdateUserBody, BareSession>,
) -> Result<Reply, ApiError> {
    let target = user_id(&body.user_id);
    let edited = state
        .admin
        .clone()
        .edit_user(identity_pb::EditUserRequest {
            actor_id: auth.0.user.id.clone(),
            user_id: target.clone(),
            data_json: Value::Object(body.data).to_string(),
        })
        .await?
        .into_inner();
    let changed = edited.user.ok_or(base::USER_NOT_FOUND)?;
    let reply = Reply::json(&User::from(changed));
    if edited.sessions_ended {
        end_sessions(&state, &target).await?;
        return Ok(ended_sessions_reply(&state, &auth, &target, reply));
    }
    forget_cached_user(&state, &target).await;
    Ok(reply)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BanUserBody {
    #[schema(value_type = Value)]
    user_id: Value,
    /// Empty or omitted: `ADMIN_DEFAULT_BAN_REASON`.
    #[schema(max_length = 1024)]
    ban_reason: Option<String>,
    /// Seconds until the ban lifts itself; omitted or 0: until unbanned. At most 10¹²
    /// (some 31,000 years), which every clock can add.
    #[schema(minimum = 0, maximum = 1000000000000.0)]
    ban_expires_in: Option<f64>,
}

/// Bans a user (`user:ban`): every session of theirs ends now, and signing in is refused.
#[utoipa::path(post, path = "/admin/ban-user", tag = "admin", request_body = BanUserBody,
    responses((status = 200, body = UserResponse, description = "The banned user"), AdminErrors))]
pub(super) async fn ban_user(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<BanUserBody, BareSession>,
) -> Result<Reply, ApiError> {
    let expires_in = match body.ban_expires_in {
        Some(seconds) if seconds < 0.0 || !seconds.is_finite() => {
            return Err(base::VALIDATION_ERROR
                .with_message("[body.banExpiresIn] Invalid input: expected a number of seconds")
                .into());
        }
        Some(seconds) if seconds >= 1.0 => Some(seconds as u64),
        _ => None,
    };
    let target = user_id(&body.user_id);
    let banned = state
        .admin
        .clone()
        .ban_user(identity_pb::BanUserRequest {
            actor_id: auth.0.user.id,
            user_id: target.clone(),
            reason: body.ban_reason.filter(|r| !r.is_empty()),
            expires_in_seconds: expires_in,
        })
        .await?
        .into_inner();
    end_sessions(&state, &target).await?;
    user_reply(banned.user)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserIdBody {
    /// Coerced to a string.
    #[schema(value_type = Value)]
    pub(super) user_id: Value,
}

/// Lifts a user's ban (`user:ban`).
#[utoipa::path(post, path = "/admin/unban-user", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = UserResponse, description = "The user, no longer banned"), AdminErrors))]
pub(super) async fn unban_user(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UserIdBody, BareSession>,
) -> Result<Reply, ApiError> {
    let target = user_id(&body.user_id);
    let unbanned = state
        .admin
        .clone()
        .unban_user(identity_pb::UnbanUserRequest {
            actor_id: auth.0.user.id,
            user_id: target.clone(),
        })
        .await?
        .into_inner();
    forget_cached_user(&state, &target).await;
    user_reply(unbanned.user)
}

/// Deletes a user, their accounts and sessions (`user:delete`).
#[utoipa::path(post, path = "/admin/remove-user", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SuccessResponse, description = "`{\"success\": true}`"), AdminErrors))]
pub(super) async fn remove_user(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UserIdBody, BareSession>,
) -> Result<Reply, ApiError> {
    let target = user_id(&body.user_id);
    state
        .admin
        .clone()
        .remove_user(identity_pb::RemoveUserRequest {
            actor_id: auth.0.user.id,
            user_id: target.clone(),
        })
        .await?;
    end_sessions(&state, &target).await?;
    Ok(Reply::json(&SUCCESS))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetUserPasswordBody {
    new_password: String,
    #[schema(value_type = Value)]
    user_id: Value,
}

/// Sets a user's password (`user:set-password`), creating their credential account if needed.
/// Every session of theirs ends and they are mailed; another admin's only for a super-admin.
#[utoipa::path(post, path = "/admin/set-user-password", tag = "admin", request_body = SetUserPasswordBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"), AdminErrors))]
pub(super) async fn set_user_password(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<SetUserPasswordBody, BareSession>,
) -> Result<Reply, ApiError> {
    let target = user_id(&body.user_id);
    for (field, value) in [("newPassword", &body.new_password), ("userId", &target)] {
        if value.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message(format!("[body.{field}] {field} cannot be empty"))
                .into());
        }
    }
    state
        .admin
        .clone()
        .set_user_password(identity_pb::SetUserPasswordRequest {
            actor_id: auth.0.user.id.clone(),
            user_id: target.clone(),
            new_password: body.new_password,
        })
        .await?;
    end_sessions(&state, &target).await?;
    let reply = Reply::json(&StatusResponse { status: true });
    Ok(ended_sessions_reply(&state, &auth, &target, reply))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetTwoFactorBody {
    #[schema(min_length = 1, max_length = 255)]
    user_id: String,
}

/// Turns a user's second factor off (`user:reset-two-factor`; Gatehouse's own route): their
/// authenticator, backup codes and trusted browsers are forgotten, every session of theirs
/// ends and they are mailed. Another admin's only for a super-admin.
#[utoipa::path(post, path = "/admin/reset-two-factor", tag = "admin", request_body = ResetTwoFactorBody,
    responses((status = 200, body = UserResponse, description = "The user, their second factor off"), AdminErrors))]
pub(super) async fn reset_two_factor(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ResetTwoFactorBody, BareSession>,
) -> Result<Reply, ApiError> {
    let user = state
        .admin
        .clone()
        .reset_two_factor(identity_pb::ResetTwoFactorRequest {
            actor_id: auth.0.user.id.clone(),
            user_id: body.user_id.clone(),
        })
        .await?
        .into_inner()
        .user;
    end_sessions(&state, &body.user_id).await?;
    let reply = user_reply(user)?;
    Ok(ended_sessions_reply(&state, &auth, &body.user_id, reply))
}
