//! The `api_key` group (`gatehouse.identity.v1.ApiKeyService`): better-auth's api-key plugin,
//! `POST /api-key/create`, `GET /api-key/get`, `GET /api-key/list`, `POST /api-key/update`,
//! `POST /api-key/delete`. Verification and the expired-key sweep are RPCs only (404 here).
//!
//! The limits (`remaining`, refill, rate limit, permissions) are the server's to set: present
//! in a request, they are refused with `SERVER_ONLY_PROPERTY`. Keys an organization owns
//! (`organizationId` at creation) are managed by its members holding the organization plugin's
//! `apiKey` permission for the action (`create`, `read`, `update`, `delete`), the owner role
//! always, as the plugin checks it.

use axum::extract::State;
use gatehouse_kit::errors::organization as org_codes;
use gatehouse_kit::errors::{api_key as codes, base};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::organization::v1 as org_pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::Group;
use super::shared::input::{SortDirection, explicit, wire};
use crate::error::ApiError;
use crate::extract::organization::caller;
use crate::extract::{Authenticate, Input, RequestMeta, Session};
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;

pub fn router() -> Group {
    Group::new()
        .route(route!(create_api_key), Policy::DEFAULT)
        .route(route!(get_api_key), Policy::DEFAULT)
        .route(route!(list_api_keys), Policy::DEFAULT)
        .route(route!(update_api_key), Policy::DEFAULT)
        .route(route!(delete_api_key), Policy::DEFAULT)
}

/// A key as its owner sees it, in better-auth's field order; `key` only when it is made.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    config_id: String,
    name: Option<String>,
    /// The key's first 6 characters, to recognise it by.
    start: Option<String>,
    /// The owner: the user's id, or the organization's for its keys.
    reference_id: String,
    prefix: Option<String>,
    /// The key itself: in the create answer only, never again.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    /// Milliseconds between refills of `remaining`.
    refill_interval: Option<i64>,
    refill_amount: Option<i64>,
    last_refill_at: Option<String>,
    enabled: bool,
    rate_limit_enabled: bool,
    /// Milliseconds.
    rate_limit_time_window: Option<i64>,
    rate_limit_max: Option<i64>,
    request_count: i64,
    /// Uses left; `null`: no cap.
    remaining: Option<i64>,
    last_request: Option<String>,
    expires_at: Option<String>,
    created_at: String,
    updated_at: String,
    #[schema(value_type = Option<Object>)]
    permissions: Option<Value>,
    #[schema(value_type = Option<Object>)]
    metadata: Option<Value>,
    id: String,
}

impl ApiKey {
    fn from_pb(key: identity_pb::ApiKey, plain: Option<String>) -> Self {
        let iso = |ms: Option<i64>| ms.map(gatehouse_kit::ids::iso);
        let json = |raw: Option<String>| raw.and_then(|raw| serde_json::from_str(&raw).ok());
        ApiKey {
            config_id: key.config_id,
            name: key.name,
            start: key.start,
            reference_id: key.reference_id,
            prefix: key.prefix,
            key: plain,
            refill_interval: key.refill_interval_ms,
            refill_amount: key.refill_amount,
            last_refill_at: iso(key.last_refill_at_unix_ms),
            enabled: key.enabled,
            rate_limit_enabled: key.rate_limit_enabled,
            rate_limit_time_window: key.rate_limit_time_window_ms,
            rate_limit_max: key.rate_limit_max,
            request_count: key.request_count,
            remaining: key.remaining,
            last_request: iso(key.last_request_unix_ms),
            expires_at: iso(key.expires_at_unix_ms),
            created_at: gatehouse_kit::ids::iso(key.created_at_unix_ms),
            updated_at: gatehouse_kit::ids::iso(key.updated_at_unix_ms),
            permissions: json(key.permissions_json),
            metadata: json(key.metadata_json),
            id: key.id,
        }
    }
}

/// The fields only the server sets: their presence is refused over HTTP. Typed as better-auth
/// types them, so a wrong type is a validation error first.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerOnly {
    #[schema(minimum = 0)]
    remaining: Option<f64>,
    #[schema(minimum = 1)]
    refill_amount: Option<f64>,
    refill_interval: Option<f64>,
    rate_limit_enabled: Option<bool>,
    rate_limit_time_window: Option<f64>,
    rate_limit_max: Option<f64>,
    #[schema(value_type = Option<Object>)]
    #[serde(default, deserialize_with = "explicit")]
    permissions: Option<Option<Value>>,
}

impl ServerOnly {
    fn refuse_any(&self) -> Result<(), ApiError> {
        let any = self.remaining.is_some()
            || self.refill_amount.is_some()
            || self.refill_interval.is_some()
            || self.rate_limit_enabled.is_some()
            || self.rate_limit_time_window.is_some()
            || self.rate_limit_max.is_some()
            || self.permissions.is_some();
        if any {
            return Err(codes::SERVER_ONLY_PROPERTY.into());
        }
        Ok(())
    }
}

/// Who owns the keys a create or update acts on: these routes read the session themselves and
/// answer `UNAUTHORIZED_SESSION` without one; a `userId` other than the caller's is refused
/// the same way (only the server may act for another user).
async fn owner(
    state: &AppState,
    meta: &RequestMeta,
    user_id: Option<&Value>,
) -> Result<Session, ApiError> {
    let session = match Session::authenticate(state, meta).await {
        Ok(session) => session,
        Err(ApiError::Failure(failure)) if failure.is(base::UNAUTHORIZED) => {
            return Err(codes::UNAUTHORIZED_SESSION.into());
        }
        Err(other) => return Err(other),
    };
    if user_id.is_some_and(|id| super::shared::input::user_id(id) != session.user.id) {
        return Err(codes::UNAUTHORIZED_SESSION.into());
    }
    Ok(session)
}

/// The api-key plugin's check of a member's `apiKey` permission for `action` in an
/// organization: a non-member is 403 `USER_NOT_MEMBER_OF_ORGANIZATION`, a member without it
/// 403 `INSUFFICIENT_API_KEY_PERMISSIONS`; the owner role may do everything.
async fn check_organization(
    state: &AppState,
    session: &Session,
    organization_id: &str,
    action: &str,
) -> Result<(), ApiError> {
    let answer = state
        .members
        .clone()
        .has_permission(org_pb::HasPermissionRequest {
            caller: caller(session),
            organization_id: Some(organization_id.to_string()),
            permissions_json: serde_json::json!({ "apiKey": [action] }).to_string(),
            owner_has_every_permission: true,
        })
        .await;
    match answer {
        Ok(answer) if answer.get_ref().success => Ok(()),
        Ok(_) => Err(codes::INSUFFICIENT_API_KEY_PERMISSIONS.into()),
        Err(status) => match ApiError::from(status) {
            ApiError::Failure(failure)
                if failure.is(org_codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION) =>
            {
                Err(codes::USER_NOT_MEMBER_OF_ORGANIZATION.into())
            }
            other => Err(other),
        },
    }
}

/// The organization owning key `id` once the caller may do `action` to its keys; `None` for a
/// user's key (identity then finds it only among the caller's own).
async fn organization_of_key(
    state: &AppState,
    session: &Session,
    id: &str,
    action: &str,
) -> Result<Option<String>, ApiError> {
    let owner = state
        .api_keys
        .clone()
        .get_api_key_owner(identity_pb::GetApiKeyOwnerRequest { id: id.to_string() })
        .await?
        .into_inner();
    if !owner.organization_owned {
        return Ok(None);
    }
    check_organization(state, session, &owner.reference_id, action).await?;
    Ok(Some(owner.reference_id))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateApiKeyBody {
    #[schema(max_length = 255)]
    name: Option<String>,
    /// Seconds until the key expires (1 to 365 days); `null`: never.
    #[schema(minimum = 1)]
    expires_in: Option<f64>,
    /// Put before the key's random part (no separator is added).
    #[schema(max_length = 255, pattern = r"^[a-zA-Z0-9_-]+$")] // kit::validate::KEY_PREFIX
    prefix: Option<String>,
    /// An object or an array, kept with the key.
    #[schema(value_type = Option<Object>)]
    metadata: Option<Value>,
    /// better-auth's configuration id, kept with the key (`default`).
    #[schema(max_length = 255)]
    config_id: Option<String>,
    /// A key the organization owns (its members with `apiKey: create` may make one).
    #[schema(max_length = 255)]
    organization_id: Option<String>,
    /// Only the server may make a key for another user.
    #[schema(value_type = Option<String>)]
    user_id: Option<Value>,
    #[serde(flatten)]
    #[schema(inline)]
    server_only: ServerOnly,
}

/// Makes a key for the caller; the answer holds the key itself, this once.
#[utoipa::path(post, path = "/api-key/create", tag = "api_key", request_body = CreateApiKeyBody,
    responses((status = 200, body = ApiKey, description = "The new key, with `key` (shown once)"),
        (status = 400, body = ErrorBody, description = "`SERVER_ONLY_PROPERTY`, `METADATA_DISABLED`, `INVALID_METADATA_TYPE`, `EXPIRES_IN_IS_TOO_SMALL`, `EXPIRES_IN_IS_TOO_LARGE`, `INVALID_PREFIX_LENGTH`, `INVALID_NAME_LENGTH`, `VALIDATION_ERROR`"),
        (status = 401, body = ErrorBody, description = "`UNAUTHORIZED_SESSION`: no session, or a `userId` not the caller's"),
        (status = 403, body = ErrorBody, description = "`USER_NOT_MEMBER_OF_ORGANIZATION`, `INSUFFICIENT_API_KEY_PERMISSIONS`"),
        BodyErrors))]
async fn create_api_key(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<CreateApiKeyBody>,
) -> Result<Reply, ApiError> {
    if meta.body_absent {
        return Err(base::VALIDATION_ERROR
            .with_message("[body] Invalid input: expected object, received undefined")
            .into());
    }
    // better-auth refuses the server's fields before it looks at the session.
    body.server_only.refuse_any()?;
    let caller = owner(&state, &meta, body.user_id.as_ref()).await?;
    let organization_id = body.organization_id.filter(|id| !id.is_empty());
    if let Some(organization_id) = &organization_id {
        check_organization(&state, &caller, organization_id, "create").await?;
    }
    let made = state
        .api_keys
        .clone()
        .create_api_key(identity_pb::CreateApiKeyRequest {
            organization_id,
            config_id: body.config_id,
            user_id: caller.user.id,
            name: body.name,
            expires_in_secs: body.expires_in,
            prefix: body.prefix,
            metadata_json: body.metadata.map(|m| m.to_string()),
            limits: None,
        })
        .await?
        .into_inner();
    let key = made.api_key.ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&ApiKey::from_pb(key, Some(made.key))).no_store())
}

#[derive(Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct GetApiKeyQuery {
    /// The key's id.
    #[schema(max_length = 255)]
    #[param(max_length = 255)]
    id: String,
    /// Accepted and ignored.
    #[schema(max_length = 255)]
    #[param(max_length = 255)]
    config_id: Option<String>,
}

/// One of the caller's keys (404 `KEY_NOT_FOUND` for anyone else's).
#[utoipa::path(get, path = "/api-key/get", tag = "api_key",
    params(GetApiKeyQuery),
    responses((status = 200, body = ApiKey, description = "The key, without the key itself"),
        (status = 403, body = ErrorBody, description = "An organization's key: `USER_NOT_MEMBER_OF_ORGANIZATION`, `INSUFFICIENT_API_KEY_PERMISSIONS`"),
        (status = 404, body = ErrorBody, description = "`KEY_NOT_FOUND`"), BodyErrors))]
async fn get_api_key(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<GetApiKeyQuery, Session>,
) -> Result<Reply, ApiError> {
    let _ignored = body.config_id;
    let organization_id = organization_of_key(&state, &auth, &body.id, "read").await?;
    let found = state
        .api_keys
        .clone()
        .get_api_key(identity_pb::GetApiKeyRequest {
            organization_id,
            user_id: auth.user.id,
            id: body.id,
        })
        .await?
        .into_inner();
    let key = found.api_key.ok_or(codes::KEY_NOT_FOUND)?;
    Ok(Reply::json(&ApiKey::from_pb(key, None)))
}

#[derive(Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListApiKeysQuery {
    /// At most this many (≤ 1000).
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 1000)]
    #[param(value_type = Option<i64>, minimum = 0, maximum = 1000)]
    limit: Option<u32>,
    /// Skip this many (≤ 1,000,000).
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 1000000)]
    #[param(value_type = Option<i64>, minimum = 0, maximum = 1000000)]
    offset: Option<u32>,
    /// A field of the key.
    #[schema(inline)]
    #[param(inline)]
    sort_by: Option<ApiKeySortField>,
    /// `asc` (the default) or `desc`.
    #[schema(inline)]
    #[param(inline)]
    sort_direction: Option<SortDirection>,
    /// Accepted and ignored.
    #[schema(max_length = 255)]
    #[param(max_length = 255)]
    config_id: Option<String>,
    /// The organization's keys instead of the caller's (`apiKey: read`).
    #[schema(max_length = 255)]
    #[param(max_length = 255)]
    organization_id: Option<String>,
}

// A key's field a list is sorted by, named as on the wire. (No doc comment: it would become
// the inline schema's description.)
#[derive(Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ApiKeySortField {
    Id,
    ConfigId,
    Name,
    Start,
    ReferenceId,
    Prefix,
    RefillInterval,
    RefillAmount,
    LastRefillAt,
    Enabled,
    RateLimitEnabled,
    RateLimitTimeWindow,
    RateLimitMax,
    RequestCount,
    Remaining,
    LastRequest,
    ExpiresAt,
    CreatedAt,
    UpdatedAt,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListApiKeysResponse {
    api_keys: Vec<ApiKey>,
    /// Every key of the caller's, whatever the page.
    total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u32>,
}

/// The caller's keys: oldest first unless sorted, paged by `limit` and `offset`.
#[utoipa::path(get, path = "/api-key/list", tag = "api_key",
    params(ListApiKeysQuery),
    responses((status = 200, body = ListApiKeysResponse, description = "One page of the keys and how many there are"),
        (status = 403, body = ErrorBody, description = "With `organizationId`: `USER_NOT_MEMBER_OF_ORGANIZATION`, `INSUFFICIENT_API_KEY_PERMISSIONS`"), BodyErrors))]
async fn list_api_keys(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListApiKeysQuery, Session>,
) -> Result<Reply, ApiError> {
    let page = |api_keys, total| ListApiKeysResponse {
        api_keys,
        total,
        limit: body.limit,
        offset: body.offset,
    };
    let _ignored = &body.config_id;
    let organization_id = body.organization_id.clone().filter(|id| !id.is_empty());
    if let Some(organization_id) = &organization_id {
        check_organization(&state, &auth, organization_id, "read").await?;
    }
    let found = state
        .api_keys
        .clone()
        .list_api_keys(identity_pb::ListApiKeysRequest {
            organization_id,
            user_id: auth.user.id,
            limit: body.limit,
            offset: body.offset,
            sort_by: body.sort_by.map(wire),
            descending: matches!(body.sort_direction, Some(SortDirection::Desc)),
        })
        .await?
        .into_inner();
    let keys = found
        .api_keys
        .into_iter()
        .map(|key| ApiKey::from_pb(key, None))
        .collect();
    Ok(Reply::json(&page(keys, found.total)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateApiKeyBody {
    #[schema(max_length = 255)]
    key_id: String,
    #[schema(max_length = 255)]
    config_id: Option<String>,
    /// Only the server may change another user's key.
    #[schema(value_type = Option<String>)]
    user_id: Option<Value>,
    #[schema(max_length = 255)]
    name: Option<String>,
    enabled: Option<bool>,
    /// Seconds from now until the key expires; `null` removes the expiry.
    #[schema(value_type = Option<f64>, minimum = 1)]
    #[serde(default, deserialize_with = "explicit")]
    expires_in: Option<Option<f64>>,
    /// An object or an array; `null` removes it.
    #[schema(value_type = Option<Object>)]
    #[serde(default, deserialize_with = "explicit")]
    metadata: Option<Value>,
    #[serde(flatten)]
    #[schema(inline)]
    server_only: ServerOnly,
}

/// Renames, disables or re-dates one of the caller's keys, or changes its metadata.
#[utoipa::path(post, path = "/api-key/update", tag = "api_key", request_body = UpdateApiKeyBody,
    responses((status = 200, body = ApiKey, description = "The key as changed"),
        (status = 400, body = ErrorBody, description = "`NO_VALUES_TO_UPDATE`, `SERVER_ONLY_PROPERTY`, `INVALID_NAME_LENGTH`, `EXPIRES_IN_IS_TOO_SMALL`, `EXPIRES_IN_IS_TOO_LARGE`, `INVALID_METADATA_TYPE`, `VALIDATION_ERROR`"),
        (status = 401, body = ErrorBody, description = "`UNAUTHORIZED_SESSION`: no session, or a `userId` not the caller's"),
        (status = 403, body = ErrorBody, description = "An organization's key: `USER_NOT_MEMBER_OF_ORGANIZATION`, `INSUFFICIENT_API_KEY_PERMISSIONS`"),
        (status = 404, body = ErrorBody, description = "`KEY_NOT_FOUND`"), BodyErrors))]
async fn update_api_key(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<UpdateApiKeyBody>,
) -> Result<Reply, ApiError> {
    // Unlike create, better-auth asks for the session before the server's fields.
    let caller = owner(&state, &meta, body.user_id.as_ref()).await?;
    body.server_only.refuse_any()?;
    let _ignored = body.config_id;
    let organization_id = organization_of_key(&state, &caller, &body.key_id, "update").await?;
    let updated = state
        .api_keys
        .clone()
        .update_api_key(identity_pb::UpdateApiKeyRequest {
            organization_id,
            user_id: caller.user.id,
            id: body.key_id,
            name: body.name,
            enabled: body.enabled,
            expires_in_secs: body.expires_in.flatten(),
            clear_expiry: matches!(body.expires_in, Some(None)),
            metadata_json: body.metadata.map(|m| m.to_string()),
            limits: None,
        })
        .await?
        .into_inner();
    let key = updated.api_key.ok_or(codes::KEY_NOT_FOUND)?;
    Ok(Reply::json(&ApiKey::from_pb(key, None)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteApiKeyBody {
    #[schema(max_length = 255)]
    key_id: String,
    #[schema(max_length = 255)]
    config_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct DeleteApiKeyResponse {
    success: bool,
}

/// Deletes one of the caller's keys: it stops working at once.
#[utoipa::path(post, path = "/api-key/delete", tag = "api_key", request_body = DeleteApiKeyBody,
    responses((status = 200, body = DeleteApiKeyResponse, description = "Deleted"),
        (status = 403, body = ErrorBody, description = "An organization's key: `USER_NOT_MEMBER_OF_ORGANIZATION`, `INSUFFICIENT_API_KEY_PERMISSIONS`"),
        (status = 404, body = ErrorBody, description = "`KEY_NOT_FOUND`"), BodyErrors))]
async fn delete_api_key(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<DeleteApiKeyBody, Session>,
) -> Result<Reply, ApiError> {
    let _ignored = body.config_id;
    let organization_id = organization_of_key(&state, &auth, &body.key_id, "delete").await?;
    state
        .api_keys
        .clone()
        .delete_api_key(identity_pb::DeleteApiKeyRequest {
            organization_id,
            user_id: auth.user.id,
            id: body.key_id,
        })
        .await?;
    Ok(Reply::json(&DeleteApiKeyResponse { success: true }))
}
