//! The `endpoint` group under `/api/billing` (`gatehouse.billing_webhook.v1.EndpointService`):
//! an organization's webhook endpoints — create, list, get, update, delete, reveal and rotate
//! the secret, send a test event. Not better-auth's protocol, but its conventions: a session
//! cookie, the origin check on writes, better-auth's error body.
//!
//! Every route acts on the organization named by `organizationId` (the session's active one
//! when absent) and needs `organization:update` there, decided by the organization service's
//! one permission check ([`Permitted`]): owners and admins by default, and any custom role
//! given that permission.

use axum::extract::{Path, State};
use gatehouse_proto::billing_webhook::v1 as pb;
use serde::Deserialize;
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::Input;
use crate::extract::organization::{
    ManageBilling, NamesOrganization, OrganizationInput, Permitted,
};
use crate::openapi::BillingErrors;
use crate::policy::{Policy, RateRule, check_organization};
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::StatusResponse;
use crate::wire::billing::{Endpoint, EndpointSecret};

pub fn router() -> Group {
    Group::new()
        .route(route!(list_endpoints, create_endpoint), Policy::DEFAULT)
        .route(
            route!(get_endpoint, update_endpoint, delete_endpoint),
            Policy::DEFAULT,
        )
        .route(route!(get_endpoint_secret), Policy::DEFAULT)
        .route(route!(rotate_endpoint_secret), Policy::DEFAULT)
        .route(route!(send_test_event), Policy::DEFAULT)
}

fn endpoint(endpoint: Option<pb::Endpoint>) -> Result<Endpoint, ApiError> {
    Ok(endpoint
        .ok_or(gatehouse_kit::errors::base::INTERNAL_SERVER_ERROR)?
        .into())
}

/// The organization's endpoints, oldest first.
#[utoipa::path(get, path = "/endpoints", tag = "endpoint", params(OrganizationInput),
    responses((status = 200, body = Vec<Endpoint>, description = "The endpoints"), BillingErrors))]
async fn list_endpoints(
    State(state): State<AppState>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let listed = state
        .endpoints
        .clone()
        .list_endpoints(pb::ListEndpointsRequest { organization_id })
        .await?
        .into_inner();
    let endpoints: Vec<Endpoint> = listed.endpoints.into_iter().map(Into::into).collect();
    Ok(Reply::json(&endpoints))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateEndpointBody {
    /// An absolute `https` (or `http`) URL; private, loopback and link-local addresses are
    /// refused unless the operator allowed their networks.
    #[schema(min_length = 1, max_length = 2048)]
    url: String,
    #[schema(max_length = 512)]
    description: Option<String>,
    /// The event types it takes (`order.paid`, …); empty or absent: every type.
    #[schema(max_items = 64)]
    event_types: Option<Vec<String>>,
    /// True when absent.
    enabled: Option<bool>,
    /// Sign with the UTF-8 text of the secret as the key, as the payments platform does (for
    /// receivers on its older SDK).
    polar_signing: Option<bool>,
    organization_id: Option<String>,
}

impl NamesOrganization for CreateEndpointBody {
    fn organization_id(&self) -> Option<&str> {
        self.organization_id.as_deref()
    }
}

/// Registers an endpoint with a new secret (reveal it with `GET /endpoints/{endpointId}/secret`).
#[utoipa::path(post, path = "/endpoints", tag = "endpoint", request_body = CreateEndpointBody,
    responses((status = 200, body = Endpoint, description = "The new endpoint"), BillingErrors))]
async fn create_endpoint(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<CreateEndpointBody, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let created = state
        .endpoints
        .clone()
        .create_endpoint(pb::CreateEndpointRequest {
            organization_id,
            created_by_email: auth.session.user.email.clone(),
            created_by_name: auth.session.user.name.clone(),
            created_by_language: meta.language(),
            url: body.url,
            description: body.description,
            event_types: body.event_types.map(|names| pb::EventTypes { names }),
            enabled: body.enabled,
            polar_signing: body.polar_signing,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&endpoint(created.endpoint)?))
}

/// One endpoint.
#[utoipa::path(get, path = "/endpoints/{endpointId}", tag = "endpoint",
    params(("endpointId" = String, Path), OrganizationInput),
    responses((status = 200, body = Endpoint, description = "The endpoint"), BillingErrors))]
async fn get_endpoint(
    State(state): State<AppState>,
    Path(endpoint_id): Path<String>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let found = state
        .endpoints
        .clone()
        .get_endpoint(pb::GetEndpointRequest {
            organization_id,
            endpoint_id,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&endpoint(found.endpoint)?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateEndpointBody {
    #[schema(min_length = 1, max_length = 2048)]
    url: Option<String>,
    #[schema(max_length = 512)]
    description: Option<String>,
    /// Replaces the filter; empty: every type.
    #[schema(max_items = 64)]
    event_types: Option<Vec<String>>,
    /// Enabling clears the failing streak and the reason it was disabled.
    enabled: Option<bool>,
    polar_signing: Option<bool>,
    organization_id: Option<String>,
}

impl NamesOrganization for UpdateEndpointBody {
    fn organization_id(&self) -> Option<&str> {
        self.organization_id.as_deref()
    }
}

/// Changes the fields the body names.
#[utoipa::path(patch, path = "/endpoints/{endpointId}", tag = "endpoint",
    params(("endpointId" = String, Path)), request_body = Option<UpdateEndpointBody>,
    responses((status = 200, body = Endpoint, description = "The endpoint as it is now"), BillingErrors))]
async fn update_endpoint(
    State(state): State<AppState>,
    Path(endpoint_id): Path<String>,
    Input { body, auth, .. }: Input<UpdateEndpointBody, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let updated = state
        .endpoints
        .clone()
        .update_endpoint(pb::UpdateEndpointRequest {
            organization_id,
            endpoint_id,
            url: body.url,
            description: body.description,
            event_types: body.event_types.map(|names| pb::EventTypes { names }),
            enabled: body.enabled,
            polar_signing: body.polar_signing,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&endpoint(updated.endpoint)?))
}

/// Removes the endpoint with its deliveries and their attempts.
#[utoipa::path(delete, path = "/endpoints/{endpointId}", tag = "endpoint",
    params(("endpointId" = String, Path), OrganizationInput),
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"), BillingErrors))]
async fn delete_endpoint(
    State(state): State<AppState>,
    Path(endpoint_id): Path<String>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    state
        .endpoints
        .clone()
        .delete_endpoint(pb::DeleteEndpointRequest {
            organization_id,
            endpoint_id,
        })
        .await?;
    Ok(Reply::json(&StatusResponse { status: true }))
}

/// The endpoint's signing secret, and the previous one while it still signs.
#[utoipa::path(get, path = "/endpoints/{endpointId}/secret", tag = "endpoint",
    params(("endpointId" = String, Path), OrganizationInput),
    responses((status = 200, body = EndpointSecret, description = "The secret"), BillingErrors))]
async fn get_endpoint_secret(
    State(state): State<AppState>,
    Path(endpoint_id): Path<String>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let secret = state
        .endpoints
        .clone()
        .get_endpoint_secret(pb::GetEndpointSecretRequest {
            organization_id,
            endpoint_id,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&EndpointSecret {
        secret: secret.secret,
        previous_secret: secret.previous_secret,
        previous_secret_expires_at: secret
            .previous_secret_expires_at_unix_ms
            .map(gatehouse_kit::ids::iso),
    })
    .no_store())
}

/// A new secret; the old one keeps signing beside it for the configured overlap
/// (`BILLING_WEBHOOK_SECRET_OVERLAP_HOURS`).
#[utoipa::path(post, path = "/endpoints/{endpointId}/rotate-secret", tag = "endpoint",
    params(("endpointId" = String, Path)), request_body = Option<OrganizationInput>,
    responses((status = 200, body = Endpoint, description = "The endpoint"), BillingErrors))]
async fn rotate_endpoint_secret(
    State(state): State<AppState>,
    Path(endpoint_id): Path<String>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let rotated = state
        .endpoints
        .clone()
        .rotate_endpoint_secret(pb::RotateEndpointSecretRequest {
            organization_id,
            endpoint_id,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&endpoint(rotated.endpoint)?))
}

#[derive(serde::Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SentTestEvent {
    /// The stored test event (in the event log).
    event_id: String,
    /// Its delivery: the `webhook-id` the endpoint receives.
    delivery_id: String,
}

/// Sends a `webhook.test` event to this endpoint alone, delivered and retried like any other.
/// Test events and replays count against the organization's `RATE_LIMIT_REPLAY_*`.
#[utoipa::path(post, path = "/endpoints/{endpointId}/test", tag = "endpoint",
    params(("endpointId" = String, Path)), request_body = Option<OrganizationInput>,
    responses((status = 200, body = SentTestEvent, description = "The test event and its delivery"), BillingErrors))]
async fn send_test_event(
    State(state): State<AppState>,
    Path(endpoint_id): Path<String>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    check_organization(&state, &organization_id, RateRule::Replay).await?;
    let sent = state
        .endpoints
        .clone()
        .send_test_event(pb::SendTestEventRequest {
            organization_id,
            endpoint_id,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&SentTestEvent {
        event_id: sent.event_id,
        delivery_id: sent.delivery_id,
    }))
}
