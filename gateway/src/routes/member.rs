//! The `member` group (better-auth's organization plugin, §11.7): list-members,
//! get-active-member, get-active-member-role, update-member-role, remove-member, leave and
//! has-permission (`gatehouse.organization.v1.MemberService`). `add-member` is server-side
//! only in better-auth: an RPC here, no route (404).

use axum::extract::State;
use axum::http::StatusCode;
use gatehouse_kit::errors::base;
use gatehouse_kit::validate::one_or_many;
use gatehouse_proto::organization::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use super::shared::input::{FilterOperator, SortDirection, nonempty};
use crate::error::ApiError;
use crate::extract::organization::caller;
use crate::extract::{Input, NoInput, Session};
use crate::openapi::{OrganizationErrors, QueryErrors};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::organization::{Member, MemberRoles};

pub fn router() -> Group {
    Group::new()
        .route(route!(list_members), Policy::DEFAULT)
        .route(route!(get_active_member), Policy::DEFAULT)
        .route(route!(get_active_member_role), Policy::DEFAULT)
        .route(route!(update_member_role), Policy::DEFAULT)
        .route(route!(remove_member), Policy::DEFAULT)
        .route(route!(leave), Policy::DEFAULT)
        .route(route!(has_permission), Policy::DEFAULT)
}

/// A whole number from a query string; anything else is ignored, as better-auth does.
fn number(value: Option<String>) -> Option<u32> {
    value?.trim().parse().ok()
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListMembersQuery {
    /// At most this many (the membership limit when absent); not a whole number: ignored.
    limit: Option<String>,
    offset: Option<String>,
    /// `createdAt` (the default), `role`, `userId` or `id` (checked by the service).
    sort_by: Option<String>,
    /// `asc` (the default) or `desc`.
    sort_direction: Option<String>,
    /// The field `filterValue` is compared with (`userId` when absent); checked here, with or
    /// without a `filterValue`, like the operator.
    #[schema(value_type = Option<MemberField>, inline)]
    filter_field: Option<String>,
    filter_value: Option<String>,
    /// `eq` (the default), `ne`, `lt`, `lte`, `gt`, `gte`, `in`, `not_in`, `contains`,
    /// `starts_with`, `ends_with`.
    #[schema(value_type = Option<FilterOperator>, inline)]
    filter_operator: Option<String>,
    organization_id: Option<String>,
    organization_slug: Option<String>,
}

/// A member's field as list-members names it.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub enum MemberField {
    #[serde(rename = "id")]
    Id,
    #[serde(rename = "organizationId")]
    OrganizationId,
    #[serde(rename = "userId")]
    UserId,
    #[serde(rename = "role")]
    Role,
    #[serde(rename = "createdAt")]
    CreatedAt,
}

/// `sortBy`: a member's field, or empty for `createdAt` (checked by the service).
pub struct MemberSortBy;

impl utoipa::PartialSchema for MemberSortBy {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::openapi::one_of_or_empty(&["id", "organizationId", "userId", "role", "createdAt"])
    }
}

impl ToSchema for MemberSortBy {}

#[derive(Serialize, ToSchema)]
pub struct ListMembersResponse {
    members: Vec<Member>,
    total: u32,
}

/// A page of the named (or active) organization's members with their users.
#[utoipa::path(get, path = "/organization/list-members", tag = "member",
    params(("limit" = Option<String>, Query, description = "At most this many: a whole number; anything else is ignored (the membership limit)"),
        ("offset" = Option<String>, Query, description = "Skip this many: a whole number; anything else is ignored"),
        ("sortBy" = inline(Option<MemberSortBy>), Query, description = "The field sorted by; empty or absent: `createdAt`"),
        ("sortDirection" = inline(Option<SortDirection>), Query),
        ("filterField" = inline(Option<MemberField>), Query, description = "The field `filterValue` is compared with; absent: `userId`"),
        ("filterValue" = Option<String>, Query, description = "Read as the field's kind: text, or an ISO 8601 time for `createdAt`"),
        ("filterOperator" = inline(Option<FilterOperator>), Query, description = "Absent: `eq`; the text operators only on text fields"),
        ("organizationId" = Option<String>, Query), ("organizationSlug" = Option<String>, Query)),
    responses((status = 200, body = ListMembersResponse, description = "`{members, total}`"), QueryErrors))]
async fn list_members(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListMembersQuery, Session>,
) -> Result<Reply, ApiError> {
    let descending = gatehouse_kit::listing::descending("query", body.sort_direction.as_deref())?;
    let listed = state
        .members
        .clone()
        .list_members(pb::ListMembersRequest {
            caller: caller(&auth),
            organization_id: nonempty(body.organization_id),
            organization_slug: nonempty(body.organization_slug),
            limit: number(body.limit),
            offset: number(body.offset),
            sort_by: nonempty(body.sort_by),
            descending,
            filter_field: nonempty(body.filter_field),
            filter_value: body.filter_value,
            filter_operator: nonempty(body.filter_operator),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&ListMembersResponse {
        members: listed.members.into_iter().map(Into::into).collect(),
        total: listed.total,
    }))
}

/// The caller's membership of their active organization, with their user.
#[utoipa::path(get, path = "/organization/get-active-member", tag = "member",
    responses((status = 200, body = Member, description = "The caller's membership"), QueryErrors))]
async fn get_active_member(
    State(state): State<AppState>,
    Input { auth, .. }: Input<NoInput, Session>,
) -> Result<Reply, ApiError> {
    let member = state
        .members
        .clone()
        .get_active_member(pb::GetActiveMemberRequest {
            caller: caller(&auth),
        })
        .await?
        .into_inner()
        .member
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&Member::from(member)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActiveMemberRoleQuery {
    /// Another member's role (the caller must be a member too).
    user_id: Option<String>,
    organization_id: Option<String>,
    organization_slug: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct RoleResponse {
    role: String,
}

/// The caller's (or another member's) role in the named or active organization.
#[utoipa::path(get, path = "/organization/get-active-member-role", tag = "member",
    params(("userId" = Option<String>, Query), ("organizationId" = Option<String>, Query), ("organizationSlug" = Option<String>, Query)),
    responses((status = 200, body = RoleResponse, description = "`{role}`"), QueryErrors))]
async fn get_active_member_role(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ActiveMemberRoleQuery, Session>,
) -> Result<Reply, ApiError> {
    let role = state
        .members
        .clone()
        .get_active_member_role(pb::GetActiveMemberRoleRequest {
            caller: caller(&auth),
            user_id: nonempty(body.user_id),
            organization_id: nonempty(body.organization_id),
            organization_slug: nonempty(body.organization_slug),
        })
        .await?
        .into_inner()
        .role;
    Ok(Reply::json(&RoleResponse { role }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateMemberRoleBody {
    member_id: String,
    #[schema(value_type = MemberRoles, inline)]
    role: Value,
    organization_id: Option<String>,
}

/// Sets a member's role(s): `member:update` (owners always), owners only for owners.
#[utoipa::path(post, path = "/organization/update-member-role", tag = "member", request_body = UpdateMemberRoleBody,
    responses((status = 200, body = Member, description = "The member with its new role(s)"), OrganizationErrors))]
async fn update_member_role(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UpdateMemberRoleBody, Session>,
) -> Result<Reply, ApiError> {
    let roles = one_or_many("role", &body.role)?;
    // better-auth refuses an empty role with a bare 400.
    if roles.iter().all(|r| r.trim().is_empty()) {
        return Err(ApiError::Bare(StatusCode::BAD_REQUEST));
    }
    let member = state
        .members
        .clone()
        .update_member_role(pb::UpdateMemberRoleRequest {
            caller: caller(&auth),
            member_id: body.member_id,
            roles,
            organization_id: nonempty(body.organization_id),
        })
        .await?
        .into_inner()
        .member
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&Member::from(member)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveMemberBody {
    /// A member id, or the member's email (it has an `@`).
    member_id_or_email: String,
    organization_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct MemberResponse {
    member: Member,
}

/// Removes a member (`member:delete`); never the last owner.
#[utoipa::path(post, path = "/organization/remove-member", tag = "member", request_body = RemoveMemberBody,
    responses((status = 200, body = MemberResponse, description = "`{member}` (with its user when named by email)"), OrganizationErrors))]
async fn remove_member(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<RemoveMemberBody, Session>,
) -> Result<Reply, ApiError> {
    let member = state
        .members
        .clone()
        .remove_member(pb::RemoveMemberRequest {
            caller: caller(&auth),
            member_id_or_email: body.member_id_or_email,
            organization_id: nonempty(body.organization_id),
        })
        .await?
        .into_inner()
        .member
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&MemberResponse {
        member: member.into(),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaveBody {
    organization_id: String,
}

/// The caller leaves an organization; never its last owner.
#[utoipa::path(post, path = "/organization/leave", tag = "member", request_body = LeaveBody,
    responses((status = 200, body = Member, description = "The membership that ended"), OrganizationErrors))]
async fn leave(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<LeaveBody, Session>,
) -> Result<Reply, ApiError> {
    let member = state
        .members
        .clone()
        .leave_organization(pb::LeaveOrganizationRequest {
            caller: caller(&auth),
            organization_id: body.organization_id,
        })
        .await?
        .into_inner()
        .member
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&Member::from(member)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OrganizationHasPermissionBody)]
pub struct HasPermissionBody {
    /// Resource → actions: `{"member": ["create"]}`.
    #[schema(value_type = Option<Object>)]
    permissions: Option<Value>,
    /// Deprecated singular form: accepted, never granted.
    #[schema(value_type = Option<Object>)]
    permission: Option<Value>,
    organization_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct HasPermissionResponse {
    error: Option<String>,
    success: bool,
}

/// Whether the caller's role in the named (or active) organization allows every permission.
#[utoipa::path(post, path = "/organization/has-permission", tag = "member", request_body = HasPermissionBody,
    responses((status = 200, body = HasPermissionResponse, description = "`{\"error\": null, \"success\": true|false}`"), OrganizationErrors))]
async fn has_permission(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<HasPermissionBody, Session>,
) -> Result<Reply, ApiError> {
    let Some(permissions) = body.permissions else {
        if body.permission.is_none() {
            return Err(base::VALIDATION_ERROR
                .with_message("[body] Invalid input")
                .into());
        }
        // The deprecated form validates, and grants nothing (better-auth 1.7).
        return Ok(Reply::json(&HasPermissionResponse {
            error: None,
            success: false,
        }));
    };
    let success = state
        .members
        .clone()
        .has_permission(pb::HasPermissionRequest {
            caller: caller(&auth),
            organization_id: nonempty(body.organization_id),
            permissions_json: permissions.to_string(),
            owner_has_every_permission: false,
        })
        .await?
        .into_inner()
        .success;
    Ok(Reply::json(&HasPermissionResponse {
        error: None,
        success,
    }))
}
