//! The `admin` group (better-auth's admin plugin, §10): `/admin/*`
//! (`gatehouse.identity.v1.AdminService`). Every route needs a session, else 401 with an empty
//! body; whether the caller may act is identity's answer (read from its table on every call),
//! refused with the route's `YOU_ARE_NOT_ALLOWED_TO_…` code, and an action on another admin by
//! anyone but a super-admin with its `YOU_CANNOT_…_ADMINS` code. What ends sessions (ban,
//! removal, a password or email an admin set) also ends them here at once; the events end them
//! everywhere else.

use axum::extract::State;
use gatehouse_kit::errors::{Failure, admin as codes, base};
use gatehouse_kit::validate::one_or_many;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::routes;

use super::Group;
use super::shared::input::{SortDirection, user_id};
use super::shared::session::forget_cached_user;
use crate::body::whole_number;
use crate::error::ApiError;
use crate::extract::{Authenticate as _, BareSession, Input, NoInput};
use crate::openapi::AdminErrors;
use crate::policy::Policy;
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{Session, SessionWithUser, StatusResponse, User};

pub fn router() -> Group {
    let p = Policy::DEFAULT;
    Group::new()
        .route(routes!(create_user), p)
        .route(routes!(list_users), p)
        .route(routes!(get_user), p)
        .route(routes!(set_role), p)
        .route(routes!(update_user), p)
        .route(routes!(ban_user), p)
        .route(routes!(unban_user), p)
        .route(routes!(impersonate_user), p)
        .route(routes!(stop_impersonating), p)
        .route(routes!(list_user_sessions), p)
        .route(routes!(revoke_user_session), p)
        .route(routes!(revoke_user_sessions), p)
        .route(routes!(remove_user), p)
        .route(routes!(set_user_password), p)
        .route(routes!(has_permission), p)
}

#[derive(Serialize, ToSchema)]
pub struct UserResponse {
    user: User,
}

#[derive(Serialize, ToSchema)]
pub struct SuccessResponse {
    success: bool,
}

const SUCCESS: SuccessResponse = SuccessResponse { success: true };

fn user_reply(user: Option<identity_pb::User>) -> Result<Reply, ApiError> {
    let user = user.ok_or(base::USER_NOT_FOUND)?;
    Ok(Reply::json(&UserResponse { user: user.into() }))
}

/// Ends every session of `user_id` now (the user's ban or removal, a password or email an admin
/// set); the event does it too.
async fn end_sessions(state: &AppState, user_id: &str) -> Result<(), ApiError> {
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
async fn authorize(
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
fn ended_sessions_reply(
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
async fn create_user(
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
#[serde(rename_all = "camelCase")]
pub struct ListUsersQuery {
    #[schema(max_length = 255)]
    search_value: Option<String>,
    /// `email` (the default) or `name`.
    #[schema(inline)]
    search_field: Option<SearchField>,
    /// `contains` (the default), `starts_with` or `ends_with`.
    #[schema(inline)]
    search_operator: Option<TextMatch>,
    /// A whole number, at most 1000; 0 or none: the first 1000 (every answer holds at most 1000).
    limit: Option<String>,
    offset: Option<String>,
    sort_by: Option<String>,
    /// `asc` (the default) or `desc`.
    #[schema(inline)]
    sort_direction: Option<SortDirection>,
    /// Checked here, with or without a `filterValue`, like the operator.
    #[schema(value_type = Option<UserField>, inline)]
    filter_field: Option<String>,
    /// Repeat the key for `in` and `not_in`.
    #[schema(max_length = 2048)]
    filter_value: Option<String>,
    #[schema(inline)]
    filter_operator: Option<FilterOperator>,
}

/// A user's field as list-users names it (`sortBy`, `filterField`).
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub enum UserField {
    Id,
    Name,
    Email,
    EmailVerified,
    Image,
    CreatedAt,
    UpdatedAt,
    Username,
    DisplayUsername,
    Role,
    Banned,
    BanReason,
    BanExpires,
}

/// `sortBy`: a user's field, or empty for none (checked by the service).
pub struct UserSortField;

impl utoipa::PartialSchema for UserSortField {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::openapi::one_of_or_empty(&[
            "id",
            "name",
            "email",
            "emailVerified",
            "image",
            "createdAt",
            "updatedAt",
            "username",
            "displayUsername",
            "role",
            "banned",
            "banReason",
            "banExpires",
        ])
    }
}

impl ToSchema for UserSortField {}

#[derive(Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchField {
    Email,
    Name,
}

#[derive(Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TextMatch {
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FilterOperator {
    Eq,
    Ne,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    NotIn,
    Contains,
    StartsWith,
    EndsWith,
}

/// The wire name of an enum value (its serde name).
fn wire<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

#[derive(Serialize, ToSchema)]
pub struct ListUsersResponse {
    users: Vec<User>,
    /// Every user that matches, whatever the page.
    total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u32>,
}

/// The most users one page may hold.
const MAX_PAGE: u32 = 1000;

/// Searches, filters, sorts and pages the users (`user:list`).
#[utoipa::path(get, path = "/admin/list-users", tag = "admin", params(ListUsersQueryParams),
    responses((status = 200, body = ListUsersResponse, description = "One page of users and how many match"), AdminErrors))]
async fn list_users(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<ListUsersQuery, BareSession>,
) -> Result<Reply, ApiError> {
    // 0 means no limit and is not echoed, as better-auth reads it; every answer still holds at
    // most MAX_PAGE users (better-auth would send the whole table).
    let limit = whole_number(body.limit.as_deref(), "limit", 0..=MAX_PAGE)?.filter(|n| *n > 0);
    let offset = whole_number(body.offset.as_deref(), "offset", 0..=u32::MAX)?.filter(|n| *n > 0);
    // `filterValue=a&filterValue=b` is a list (for `in`).
    let values: Vec<&str> = meta
        .query
        .iter()
        .filter(|(key, _)| key == "filterValue")
        .map(|(_, value)| value.as_str())
        .collect();
    let filter_value_json = match values.as_slice() {
        [] => None,
        [one] => Some(Value::String(one.to_string()).to_string()),
        many => Some(json!(many).to_string()),
    };
    let _ = body.filter_value;
    let found = state
        .admin
        .clone()
        .list_users(identity_pb::ListUsersRequest {
            actor_id: auth.0.user.id,
            search_value: body.search_value,
            search_field: body.search_field.map(wire),
            search_operator: body.search_operator.map(wire),
            filter_field: body.filter_field,
            filter_value_json,
            filter_operator: body.filter_operator.map(wire),
            sort_by: body.sort_by,
            sort_direction: body.sort_direction.map(wire),
            limit: Some(limit.unwrap_or(MAX_PAGE)),
            offset,
        })
        .await?
        .into_inner();
    let page = ListUsersResponse {
        users: found.users.into_iter().map(Into::into).collect(),
        total: found.total,
        limit,
        offset,
    };
    Ok(Reply::json(&page))
}

/// `utoipa`'s query parameters for list-users (the same fields as [`ListUsersQuery`]).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ListUsersQueryParams {
    #[param(max_length = 255)]
    search_value: Option<String>,
    #[param(inline)]
    search_field: Option<SearchField>,
    #[param(inline)]
    search_operator: Option<TextMatch>,
    /// At most this many (and never more than 1000); 0: 1000.
    #[param(value_type = Option<i64>, minimum = 0, maximum = 1000)]
    limit: Option<u32>,
    #[param(value_type = Option<i64>, minimum = 0, maximum = 4294967295.0)]
    offset: Option<u32>,
    #[param(inline)]
    sort_by: Option<UserSortField>,
    /// `asc` (the default) or `desc`.
    #[param(inline)]
    sort_direction: Option<SortDirection>,
    /// The field `filterValue` is compared with (`email` when absent).
    #[param(inline)]
    filter_field: Option<UserField>,
    /// Read as the field's kind: text, `true`/`false`, or an ISO 8601 time; repeat the key
    /// for `in` and `not_in`.
    #[param(max_length = 2048)]
    filter_value: Option<String>,
    /// The text operators only on text fields.
    #[param(inline)]
    filter_operator: Option<FilterOperator>,
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
async fn get_user(
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
async fn set_role(
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
async fn update_user(
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
async fn ban_user(
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
    user_id: Value,
}

/// Lifts a user's ban (`user:ban`).
#[utoipa::path(post, path = "/admin/unban-user", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = UserResponse, description = "The user, no longer banned"), AdminErrors))]
async fn unban_user(
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

/// Signs the caller in as another user for a while (`user:impersonate`): a one-hour
/// session marked `impersonatedBy`; the caller's own session waits in `admin_session`.
#[utoipa::path(post, path = "/admin/impersonate-user", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SessionWithUser, description = "The impersonation session and its user; the cookies now carry it"), AdminErrors))]
async fn impersonate_user(
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
    let names = &state.cookies.names;
    let secret = state.config.secret();
    // `<admin token>:<"true" when the admin's own sign-in was not remembered>`.
    let dont_remember = if session_cookies::dont_remember(&state, &meta) {
        "true"
    } else {
        ""
    };
    let saved = format!("{}:{dont_remember}", admin.session.token);
    let mut reply = Reply::json(&data);
    reply.set_cookies(state.cookies.expire_session());
    reply.set_cookie(&state.cookies.set(
        &names.admin_session,
        &crate::cookies::sign(secret, &saved),
        Some(state.config.cookies.session_max_age.as_secs()),
    ));
    reply.set_cookies(session_cookies::issue(&state, &meta, &data, false));
    Ok(reply)
}

/// Ends the impersonation and signs the admin back in to their own session.
#[utoipa::path(post, path = "/admin/stop-impersonating", tag = "admin", request_body(content = Option<NoInput>, content_type = "application/json"),
    responses((status = 200, body = SessionWithUser, description = "The admin's own session again"), AdminErrors))]
async fn stop_impersonating(
    State(state): State<AppState>,
    Input { auth, meta, .. }: Input<NoInput, BareSession>,
) -> Result<Reply, ApiError> {
    let current = auth.0;
    let Some(admin_id) = current.session.impersonated_by.clone() else {
        return Err(Failure::message_only(400, "You are not impersonating anyone").into());
    };
    let names = &state.cookies.names;
    let saved = meta
        .cookie(&names.admin_session)
        .and_then(|raw| crate::cookies::verify(state.config.secret(), &raw));
    let admin_session_missing =
        || ApiError::from(Failure::message_only(500, "Failed to find admin session"));
    let (admin_token, dont_remember) = saved
        .as_deref()
        .and_then(|s| s.split_once(':'))
        .map(|(token, flag)| (token.to_string(), flag == "true"))
        .ok_or_else(admin_session_missing)?;
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
    reply.set_cookie(&state.cookies.expire(&names.admin_session));
    Ok(reply)
}

#[derive(Serialize, ToSchema)]
pub struct SessionsResponse {
    sessions: Vec<Session>,
}

/// Every session row of a user, expired and impersonation ones too (`session:list`).
#[utoipa::path(post, path = "/admin/list-user-sessions", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SessionsResponse, description = "The user's sessions"), AdminErrors))]
async fn list_user_sessions(
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
async fn revoke_user_session(
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
async fn revoke_user_sessions(
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

/// Deletes a user, their accounts and sessions (`user:delete`).
#[utoipa::path(post, path = "/admin/remove-user", tag = "admin", request_body = UserIdBody,
    responses((status = 200, body = SuccessResponse, description = "`{\"success\": true}`"), AdminErrors))]
async fn remove_user(
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
async fn set_user_password(
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
pub struct HasPermissionBody {
    /// Resource → actions: `{"user": ["ban"]}` (an object; checked by the route).
    #[schema(value_type = Option<Value>)]
    permissions: Option<Value>,
    /// Deprecated singular form: refused.
    #[schema(value_type = Option<Value>)]
    permission: Option<Value>,
    user_id: Option<String>,
    role: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct HasPermissionResponse {
    error: Option<String>,
    success: bool,
}

/// Whether the caller holds the permissions (better-auth checks the session's user first).
#[utoipa::path(post, path = "/admin/has-permission", tag = "admin", operation_id = "admin_has_permission", request_body = HasPermissionBody,
    responses((status = 200, body = HasPermissionResponse, description = "`{\"error\": null, \"success\": true|false}`"), AdminErrors))]
async fn has_permission(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<HasPermissionBody>,
) -> Result<Reply, ApiError> {
    // No body at all fails both of better-auth's body shapes, and says so twice.
    if meta.has_no_body() {
        return Err(base::VALIDATION_ERROR
            .with_message(
                "[body] Invalid input: expected object, received undefined; [body] Invalid input",
            )
            .into());
    }
    let permissions = match (body.permissions, body.permission) {
        (Some(Value::Object(permissions)), None) => permissions,
        (Some(_), None) => {
            return Err(base::VALIDATION_ERROR
                .with_message("[body] Invalid input")
                .into());
        }
        (None, Some(_)) => {
            return Err(Failure::message_only(
                400,
                "invalid permission check. no permission(s) were passed.",
            )
            .into());
        }
        (Some(_), Some(_)) => {
            return Err(base::VALIDATION_ERROR
                .with_message("[body] Invalid input: more than one option matched")
                .into());
        }
        (None, None) => {
            return Err(base::VALIDATION_ERROR
                .with_message("[body] Invalid input")
                .into());
        }
    };
    // The body's shape is judged before the session, as better-auth does.
    let auth = BareSession::authenticate(&state, &meta).await?;
    let answer = state
        .admin
        .clone()
        .has_permission(identity_pb::HasPermissionRequest {
            actor_id: Some(auth.0.user.id),
            user_id: body.user_id,
            role: body.role,
            permissions_json: Value::Object(permissions).to_string(),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&HasPermissionResponse {
        error: None,
        success: answer.success,
    }))
}
