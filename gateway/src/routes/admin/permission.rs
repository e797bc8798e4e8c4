//! `has-permission`: whether the caller holds the permissions named.

use axum::extract::State;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as identity_pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::extract::{BareSession, Input, Later};
use crate::openapi::AdminErrors;
use crate::reply::Reply;
use crate::state::AppState;

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
pub(super) async fn has_permission(
    State(state): State<AppState>,
    Input { body, meta, auth }: Input<HasPermissionBody, Later<BareSession>>,
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
    let auth = auth.check(&state, &meta).await?;
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
