//! The `account` group: `POST /update-user`, `POST /change-password`, `GET /list-accounts`,
//! `POST /delete-user`, `GET /delete-user/callback`
//! (`gatehouse.identity.v1.AccountService`). `set-password` is an RPC only, never a route
//! (better-auth §8.14).

use axum::extract::State;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use super::shared::session::{forget_cached_user, start_session};
use crate::error::ApiError;
use crate::extract::{Input, MaybeSession, NoInput, RequestMeta, Session as SignedIn};
use crate::openapi::{BodyErrors, ErrorBody, QueryErrors};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{SessionWithUser, StatusResponse, User};

pub fn router() -> Group {
    Group::new()
        .route(route!(update_user), Policy::DEFAULT)
        .route(
            route!(change_password),
            Policy::DEFAULT.rate(RateRule::SignIn),
        )
        .route(route!(list_accounts), Policy::DEFAULT)
        .route(route!(delete_user), Policy::DEFAULT)
        .route(route!(delete_user_callback), Policy::DEFAULT)
}

#[derive(Deserialize, ToSchema)]
pub struct DeleteUserBody {
    /// Proves it is the user (checked when not empty).
    password: Option<String>,
    /// A mailed deletion link's token: deletes at once.
    token: Option<String>,
    /// Where the mailed deletion link leads afterwards.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct DeleteUserResponse {
    success: bool,
    /// `User deleted`, or `Verification email sent` (DELETE_USER_VERIFY_BY_MAIL).
    message: &'static str,
}

const USER_DELETED: DeleteUserResponse = DeleteUserResponse {
    success: true,
    message: "User deleted",
};

/// Ends the deleted user's sessions now (the `user.deleted` event does too, a moment later)
/// and clears the caller's cookies.
async fn deleted(state: &AppState, user_id: &str, mut reply: Reply) -> Result<Reply, ApiError> {
    state
        .sessions
        .clone()
        .revoke_user_sessions(session_pb::RevokeUserSessionsRequest {
            user_id: user_id.to_string(),
            except_token: None,
        })
        .await?;
    reply.set_cookies(state.cookies.expire_session());
    Ok(reply)
}

/// Deletes the caller's account: with their password, a mailed deletion token, or a fresh
/// session (else 403 `SESSION_NOT_FRESH`). With `DELETE_USER_VERIFY_BY_MAIL` a link is mailed instead. 404 with an empty
/// body when deletion is off (`DELETE_USER_ENABLED`).
#[utoipa::path(post, path = "/delete-user", tag = "account", request_body = DeleteUserBody,
    responses((status = 200, body = DeleteUserResponse, description = "Deleted, or a link mailed"), (status = 404, description = "Deletion is off; or `INVALID_TOKEN`"), BodyErrors))]
// 400: `INVALID_PASSWORD`, `CREDENTIAL_ACCOUNT_NOT_FOUND`, `SESSION_EXPIRED` (no password and
// a session older than SESSION_FRESH_AGE).
async fn delete_user(
    State(state): State<AppState>,
    Input {
        body,
        auth: caller,
        meta,
    }: Input<DeleteUserBody, SignedIn>,
) -> Result<Reply, ApiError> {
    // An empty POST must not delete an account (better-auth wants an object, even `{}`).
    if meta.has_no_body() {
        return Err(base::VALIDATION_ERROR
            .with_message("[body] Invalid input: expected object, received undefined")
            .into());
    }
    let user_id = caller.user.id.clone();
    let answer = state
        .accounts
        .clone()
        .delete_user(identity_pb::DeleteUserRequest {
            user_id: user_id.clone(),
            password: body.password,
            token: body.token,
            fresh_session: caller.fresh,
            callback_url: body.callback_url.filter(|c| !c.is_empty()),
        })
        .await
        .map_err(ApiError::from);
    match answer {
        Ok(reply) if reply.get_ref().deleted => {
            deleted(&state, &user_id, Reply::json(&USER_DELETED)).await
        }
        Ok(_) => Ok(Reply::json(&DeleteUserResponse {
            success: true,
            message: "Verification email sent",
        })),
        Err(ApiError::Failure(failure)) if failure.is(base::NOT_FOUND) => Err(ApiError::NotFound),
        Err(error) => Err(error),
    }
}

#[derive(Deserialize, ToSchema)]
pub struct DeleteUserCallbackQuery {
    token: String,
    /// Where to go once deleted.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
}

/// The mailed deletion link, opened in the user's signed-in browser: deletes the account, then
/// redirects to `callbackURL` (or answers `{"success": true, "message": "User deleted"}`).
#[utoipa::path(get, path = "/delete-user/callback", tag = "account", params(("token" = String, Query), ("callbackURL" = Option<String>, Query)),
    responses((status = 200, body = DeleteUserResponse, description = "Deleted"), (status = 302, description = "Deleted; to `callbackURL`"), (status = 404, body = ErrorBody, description = "`INVALID_TOKEN`, `FAILED_TO_GET_USER_INFO` (no session), `NOT_FOUND` (deletion is off)"), QueryErrors))]
async fn delete_user_callback(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<DeleteUserCallbackQuery, MaybeSession>,
) -> Result<Reply, ApiError> {
    let Some(caller) = auth.0 else {
        return Err(base::FAILED_TO_GET_USER_INFO.with_status(404).into());
    };
    let user_id = caller.user.id.clone();
    state
        .accounts
        .clone()
        .confirm_delete_user(identity_pb::ConfirmDeleteUserRequest {
            user_id: user_id.clone(),
            token: body.token,
        })
        .await?;
    let reply = match body.callback_url.filter(|c| !c.is_empty()) {
        Some(callback) => Reply::redirect(&callback),
        None => Reply::json(&USER_DELETED),
    };
    deleted(&state, &user_id, reply).await
}

/// Any keys are accepted (a record, as better-auth's schema is); unknown ones are ignored.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateUserBody {
    #[schema(max_length = 255, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    name: Option<String>,
    /// A URL, or `null` to remove the image.
    #[schema(value_type = Option<String>, max_length = 2048)]
    #[serde(default, deserialize_with = "super::shared::input::explicit")]
    image: Option<Option<String>>,
    /// Username plugin: checked, normalised and unique as at sign-up; the display form is
    /// left as it was.
    #[schema(max_length = 255)]
    username: Option<String>,
    #[schema(max_length = 255)]
    display_username: Option<String>,
    /// The language of the user's mails, a platform code: 0 ru, 1 uk, 3 en, 4 es, 6 de,
    /// 15 pl, 16 fr, 82 tr.
    language: Option<i32>,
    /// Refused: `EMAIL_CAN_NOT_BE_UPDATED` (change-email is its own flow).
    email: Option<Value>,
    /// Refused when set: `FIELD_NOT_ALLOWED` (the admin plugin's fields, not the user's).
    role: Option<Value>,
    banned: Option<Value>,
    ban_reason: Option<Value>,
    ban_expires: Option<Value>,
    /// Refused when set: `FIELD_NOT_ALLOWED` (the two-factor plugin's, changed by its routes).
    two_factor_enabled: Option<Value>,
    /// Every other key (`emailVerified`, unknown ones): accepted and ignored.
    #[serde(flatten)]
    #[allow(dead_code)]
    other: std::collections::HashMap<String, Value>,
}

/// JavaScript truthiness, as better-auth judges a non-input field "supplied".
fn truthy(value: &Option<Value>) -> bool {
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
        Some(_) => true,
    }
}

/// Changes the caller's name, image or username; the session cookie is re-issued with the new
/// user, and the next `get-session` shows the change.
#[utoipa::path(post, path = "/update-user", tag = "account", request_body = UpdateUserBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"), BodyErrors))]
// 400: `EMAIL_CAN_NOT_BE_UPDATED`, `FIELD_NOT_ALLOWED`, `{"message": "No fields to update"}`,
// and the username plugin's `USERNAME_IS_ALREADY_TAKEN`, `USERNAME_TOO_SHORT`, … .
async fn update_user(
    State(state): State<AppState>,
    Input {
        body,
        auth: caller,
        meta,
    }: Input<UpdateUserBody, SignedIn>,
) -> Result<Reply, ApiError> {
    if truthy(&body.email) {
        return Err(base::EMAIL_CAN_NOT_BE_UPDATED.into());
    }
    let not_allowed = [
        ("role", &body.role),
        ("banned", &body.banned),
        ("banReason", &body.ban_reason),
        ("banExpires", &body.ban_expires),
        ("twoFactorEnabled", &body.two_factor_enabled),
    ];
    if let Some((field, _)) = not_allowed.iter().find(|(_, value)| truthy(value)) {
        return Err(base::FIELD_NOT_ALLOWED
            .with_message(format!("{field} is not allowed to be set"))
            .into());
    }
    let (clear_image, image) = match body.image {
        Some(None) => (true, None),
        Some(Some(image)) => (false, Some(image)),
        None => (false, None),
    };
    if body.name.is_none()
        && image.is_none()
        && !clear_image
        && body.username.is_none()
        && body.display_username.is_none()
        && body.language.is_none()
    {
        return Err(Failure::message_only(400, "No fields to update").into());
    }
    let user = state
        .accounts
        .clone()
        .update_user(identity_pb::UpdateUserRequest {
            user_id: caller.user.id.clone(),
            name: body.name,
            image,
            clear_image,
            username: body.username,
            display_username: body.display_username,
            language: body.language,
        })
        .await?
        .into_inner()
        .user
        .ok_or(base::FAILED_TO_UPDATE_USER)?;
    forget_cached_user(&state, &user.id).await;
    let remember = caller.session.remember_me && !session_cookies::dont_remember(&state, &meta);
    let data = SessionWithUser {
        session: caller.session.into(),
        user: user.into(),
    };
    let mut reply = Reply::json(&StatusResponse { status: true });
    reply.set_cookies(session_cookies::issue(&state, &meta, &data, remember));
    Ok(reply)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangePasswordBody {
    new_password: String,
    current_password: String,
    /// End every session and start a new one (its token is returned).
    revoke_other_sessions: Option<bool>,
}

#[derive(Serialize, ToSchema)]
pub struct ChangePasswordResponse {
    /// The new session's token when `revokeOtherSessions` was set, else `null`.
    token: Option<String>,
    user: User,
}

/// Replaces the caller's password after checking the current one.
#[utoipa::path(post, path = "/change-password", tag = "account", request_body = ChangePasswordBody,
    responses((status = 200, body = ChangePasswordResponse, description = "The user, and the new session's token when other sessions were revoked"), BodyErrors))]
// 400: `INVALID_PASSWORD`, `PASSWORD_TOO_SHORT`, `PASSWORD_TOO_LONG`,
// `CREDENTIAL_ACCOUNT_NOT_FOUND`.
async fn change_password(
    State(state): State<AppState>,
    Input {
        body,
        auth: caller,
        meta,
    }: Input<ChangePasswordBody, SignedIn>,
) -> Result<Reply, ApiError> {
    let user = state
        .accounts
        .clone()
        .change_password(identity_pb::ChangePasswordRequest {
            user_id: caller.user.id.clone(),
            current_password: body.current_password,
            new_password: body.new_password,
        })
        .await?
        .into_inner()
        .user
        .ok_or(base::FAILED_TO_UPDATE_USER)?;
    if !body.revoke_other_sessions.unwrap_or(false) {
        return Ok(Reply::json(&ChangePasswordResponse {
            token: None,
            user: user.into(),
        }));
    }
    new_session_only(&state, &meta, caller, user).await
}

/// Ends every session of the caller and signs them in afresh (§8.13).
async fn new_session_only(
    state: &AppState,
    meta: &RequestMeta,
    caller: SignedIn,
    user: identity_pb::User,
) -> Result<Reply, ApiError> {
    state
        .sessions
        .clone()
        .revoke_user_sessions(session_pb::RevokeUserSessionsRequest {
            user_id: user.id.clone(),
            except_token: None,
        })
        .await?;
    let remember = caller.session.remember_me && !session_cookies::dont_remember(state, meta);
    let data = start_session(state, meta, user, remember).await?;
    let mut reply = Reply::json(&ChangePasswordResponse {
        token: Some(data.session.token.clone()),
        user: data.user.clone(),
    });
    reply.set_cookies(session_cookies::issue(state, meta, &data, remember));
    Ok(reply)
}

/// A sign-in method as better-auth lists it (§4.3): no tokens, no password.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    id: String,
    provider_id: String,
    account_id: String,
    user_id: String,
    scopes: Vec<String>,
    created_at: String,
    updated_at: String,
}

impl From<identity_pb::Account> for Account {
    fn from(account: identity_pb::Account) -> Self {
        Self {
            id: account.id,
            provider_id: account.provider_id,
            account_id: account.account_id,
            user_id: account.user_id,
            scopes: account.scopes,
            created_at: gatehouse_kit::ids::iso(account.created_at_unix_ms),
            updated_at: gatehouse_kit::ids::iso(account.updated_at_unix_ms),
        }
    }
}

/// The caller's sign-in methods: `credential` for email and password, one per linked provider.
#[utoipa::path(get, path = "/list-accounts", tag = "account",
    responses((status = 200, body = Vec<Account>, description = "The caller's accounts"), QueryErrors))]
async fn list_accounts(
    State(state): State<AppState>,
    Input { auth: caller, .. }: Input<NoInput, SignedIn>,
) -> Result<Reply, ApiError> {
    let accounts = state
        .accounts
        .clone()
        .list_accounts(identity_pb::ListAccountsRequest {
            user_id: caller.user.id,
        })
        .await?
        .into_inner()
        .accounts;
    let accounts: Vec<Account> = accounts.into_iter().map(Into::into).collect();
    Ok(Reply::json(&accounts))
}
