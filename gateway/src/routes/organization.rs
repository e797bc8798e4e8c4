//! The `organization` group (better-auth's organization plugin, §11.6): create, check-slug,
//! update, delete, get-full-organization, set-active and list
//! (`gatehouse.organization.v1.OrganizationService`). Each route's answer to a signed-out
//! caller is better-auth's own (§11.5): an empty 401, `UNAUTHORIZED`, or "User not found".

use axum::extract::State;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::organization::v1 as pb;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use super::shared::input::present;
use super::shared::session::reissue;
use crate::error::ApiError;
use crate::extract::organization::caller;
use crate::extract::{BareSession, Input, MaybeSession, NoInput, Session};
use crate::openapi::{OrganizationErrors, QueryErrors};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::StatusResponse;
use crate::wire::organization::{
    CreatedOrganization, FullOrganization, Member, Organization, Team,
};

pub fn router() -> Group {
    Group::new()
        .route(route!(create), Policy::DEFAULT)
        .route(route!(check_slug), Policy::DEFAULT)
        .route(route!(update), Policy::DEFAULT)
        .route(route!(delete), Policy::DEFAULT)
        .route(route!(get_full_organization), Policy::DEFAULT)
        .route(route!(set_active), Policy::DEFAULT)
        .route(route!(list), Policy::DEFAULT)
}

fn metadata_text(metadata: Option<&serde_json::Map<String, Value>>) -> Option<String> {
    metadata.map(|m| Value::Object(m.clone()).to_string())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateOrganizationBody {
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$"
    )]
    name: String,
    #[schema(min_length = 1, max_length = 255)]
    slug: String,
    #[schema(max_length = 2048)]
    logo: Option<String>,
    /// Any JSON object (not null); stored as text.
    #[schema(value_type = HashMap<String, Value>)]
    #[serde(default)]
    metadata: Option<serde_json::Map<String, Value>>,
    /// Leave the session's active organization as it is.
    keep_current_active_organization: Option<bool>,
    /// For server-side calls only: over HTTP the creator is always the signed-in user.
    #[allow(dead_code)]
    user_id: Option<String>,
}

/// Creates an organization owned by the caller (with a default team); it becomes the active
/// organization of the caller's session unless `keepCurrentActiveOrganization`.
#[utoipa::path(post, path = "/organization/create", tag = "organization", request_body = CreateOrganizationBody,
    responses((status = 200, body = CreatedOrganization, description = "The organization (metadata parsed) and its one member"), OrganizationErrors))]
async fn create(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<CreateOrganizationBody, BareSession>,
) -> Result<Reply, ApiError> {
    let created = state
        .organizations
        .clone()
        .create_organization(pb::CreateOrganizationRequest {
            caller: caller(&auth.0),
            name: body.name,
            slug: body.slug,
            logo: body.logo,
            metadata: metadata_text(body.metadata.as_ref()),
            keep_current_active_organization: body
                .keep_current_active_organization
                .unwrap_or(false),
        })
        .await?
        .into_inner();
    let organization = created.organization.ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&CreatedOrganization {
        organization: Organization::written(organization),
        members: created.members.into_iter().map(Member::from).collect(),
    }))
}

#[derive(Deserialize, ToSchema)]
pub struct CheckSlugBody {
    #[schema(min_length = 1, max_length = 255)]
    slug: String,
}

/// Whether a slug is free: `{"status": true}`, else `ORGANIZATION_SLUG_ALREADY_TAKEN`.
#[utoipa::path(post, path = "/organization/check-slug", tag = "organization", request_body = CheckSlugBody,
    responses((status = 200, body = StatusResponse, description = "The slug is free"), OrganizationErrors))]
async fn check_slug(
    State(state): State<AppState>,
    Input { body, .. }: Input<CheckSlugBody, Session>,
) -> Result<Reply, ApiError> {
    state
        .organizations
        .clone()
        .check_slug(pb::CheckSlugRequest { slug: body.slug })
        .await?;
    Ok(Reply::json(&StatusResponse { status: true }))
}

/// `data` of an update: only the fields present change.
#[derive(Deserialize, ToSchema)]
pub struct UpdateOrganizationData {
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$"
    )]
    name: Option<String>,
    #[schema(min_length = 1, max_length = 255)]
    slug: Option<String>,
    /// `null` clears it.
    #[schema(value_type = Option<String>, max_length = 2048)]
    #[serde(default, deserialize_with = "present")]
    logo: Option<Value>,
    /// Any JSON object (not null); stored as text.
    #[schema(value_type = HashMap<String, Value>)]
    #[serde(default)]
    metadata: Option<serde_json::Map<String, Value>>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateOrganizationBody {
    #[schema(inline)]
    data: UpdateOrganizationData,
    /// The caller's active organization when absent.
    organization_id: Option<String>,
}

impl UpdateOrganizationData {
    fn into_request(self) -> pb::UpdateOrganizationRequest {
        pb::UpdateOrganizationRequest {
            name: self.name,
            slug: self.slug,
            clear_logo: matches!(self.logo, Some(Value::Null)),
            logo: match self.logo {
                Some(Value::String(logo)) => Some(logo),
                _ => None,
            },
            metadata: metadata_text(self.metadata.as_ref()),
            ..Default::default()
        }
    }
}

/// Changes the named (or active) organization: `organization:update` is needed.
#[utoipa::path(post, path = "/organization/update", tag = "organization", request_body = UpdateOrganizationBody,
    responses((status = 200, body = Organization, description = "The organization (metadata parsed)"), OrganizationErrors))]
async fn update(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UpdateOrganizationBody, MaybeSession>,
) -> Result<Reply, ApiError> {
    // better-auth's answer here to a signed-out caller (§11.5).
    let session = auth
        .0
        .ok_or_else(|| ApiError::from(Failure::message_only(401, "User not found")))?;
    let mut request = body.data.into_request();
    let nothing = request.name.is_none()
        && request.slug.is_none()
        && request.logo.is_none()
        && request.metadata.is_none()
        && !request.clear_logo;
    if nothing {
        // better-auth 1.7 fails with a 500 here; nothing to change is the caller's mistake.
        return Err(base::VALIDATION_ERROR
            .with_message("[body.data] No fields to update")
            .into());
    }
    request.caller = caller(&session);
    request.organization_id = body.organization_id.filter(|id| !id.is_empty());
    let updated = state
        .organizations
        .clone()
        .update_organization(request)
        .await?
        .into_inner()
        .organization
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&Organization::written(updated)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteOrganizationBody {
    organization_id: String,
}

/// Deletes an organization with its members, invitations and teams: `organization:delete`.
#[utoipa::path(post, path = "/organization/delete", tag = "organization", request_body = DeleteOrganizationBody,
    responses((status = 200, body = Organization, description = "The deleted organization"), OrganizationErrors))]
async fn delete(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<DeleteOrganizationBody, BareSession>,
) -> Result<Reply, ApiError> {
    let deleted = state
        .organizations
        .clone()
        .delete_organization(pb::DeleteOrganizationRequest {
            caller: caller(&auth.0),
            organization_id: body.organization_id,
        })
        .await?
        .into_inner()
        .organization
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&Organization::stored(deleted)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetFullOrganizationQuery {
    organization_id: Option<String>,
    organization_slug: Option<String>,
    /// At most this many members (the membership limit when absent or not a number).
    #[schema(value_type = Option<String>)]
    members_limit: Option<Value>,
}

/// The named (or active) organization with its members, invitations and teams; `null` when
/// none is named and none is active.
#[utoipa::path(get, path = "/organization/get-full-organization", tag = "organization",
    params(("organizationId" = Option<String>, Query), ("organizationSlug" = Option<String>, Query), ("membersLimit" = Option<String>, Query, description = "At most this many members: a whole number; anything else is ignored (the membership limit)")),
    responses((status = 200, body = Option<FullOrganization>, description = "The organization, or `null`"), QueryErrors))]
async fn get_full_organization(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<GetFullOrganizationQuery, Session>,
) -> Result<Reply, ApiError> {
    // better-auth reads a number and ignores anything else.
    let members_limit = body.members_limit.and_then(|limit| match limit {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    let full = state
        .organizations
        .clone()
        .get_full_organization(pb::GetFullOrganizationRequest {
            caller: caller(&auth),
            organization_id: body.organization_id.filter(|id| !id.is_empty()),
            organization_slug: body.organization_slug.filter(|s| !s.is_empty()),
            members_limit: members_limit.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        })
        .await?
        .into_inner();
    let Some(organization) = full.organization else {
        return Ok(Reply::json(&Value::Null));
    };
    Ok(Reply::json(&FullOrganization {
        organization: Organization::stored(organization),
        members: full.members.into_iter().map(Into::into).collect(),
        invitations: full.invitations.into_iter().map(Into::into).collect(),
        teams: full.teams.into_iter().map(Team::counted).collect(),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetActiveBody {
    /// An id, or `null` for none; absent keeps the current one.
    #[schema(value_type = Option<String>)]
    #[serde(default, deserialize_with = "present")]
    organization_id: Option<Value>,
    organization_slug: Option<String>,
}

/// Makes an organization (or none) the active one of the caller's session, and issues the
/// session cookies again so the cookie cache shows it.
#[utoipa::path(post, path = "/organization/set-active", tag = "organization", request_body = Option<SetActiveBody>,
    responses((status = 200, body = Option<Organization>, description = "The active organization now, or `null`"), OrganizationErrors))]
async fn set_active(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<SetActiveBody, Session>,
) -> Result<Reply, ApiError> {
    let slug = body.organization_slug.filter(|s| !s.is_empty());
    let (set, organization_id) = match body.organization_id {
        Some(Value::String(id)) => (true, Some(id)),
        Some(_) => (slug.is_none(), None),
        None => (slug.is_some(), None),
    };
    let active = state
        .organizations
        .clone()
        .set_active_organization(pb::SetActiveOrganizationRequest {
            caller: caller(&auth),
            set,
            organization_id,
            organization_slug: slug,
        })
        .await?
        .into_inner()
        .organization;
    let mut reply = match active {
        Some(organization) => Reply::json(&Organization::stored(organization)),
        None => Reply::json(&Value::Null),
    };
    reply.set_cookies(reissue(&state, &meta, &auth).await?);
    Ok(reply)
}

/// The organizations the caller is a member of.
#[utoipa::path(get, path = "/organization/list", tag = "organization",
    responses((status = 200, body = Vec<Organization>, description = "The caller's organizations"), QueryErrors))]
async fn list(
    State(state): State<AppState>,
    Input { auth, .. }: Input<NoInput, Session>,
) -> Result<Reply, ApiError> {
    let organizations = state
        .organizations
        .clone()
        .list_organizations(pb::ListOrganizationsRequest {
            caller: caller(&auth),
        })
        .await?
        .into_inner()
        .organizations;
    let organizations: Vec<Organization> = organizations
        .into_iter()
        .map(Organization::stored)
        .collect();
    Ok(Reply::json(&organizations))
}
