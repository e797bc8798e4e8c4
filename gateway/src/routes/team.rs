//! The `team` group (better-auth's organization plugin with teams, §11.9): create-team,
//! update-team, remove-team, list-teams, set-active-team, list-user-teams, list-team-members,
//! add-team-member and remove-team-member (`gatehouse.organization.v1.TeamService`).
//! create-team and remove-team answer a signed-out caller with an empty 401 (§11.5).

use axum::extract::State;
use gatehouse_kit::errors::base;
use gatehouse_proto::organization::v1 as pb;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use super::shared::input::{nonempty, present, user_id};
use super::shared::session::reissue;
use crate::error::ApiError;
use crate::extract::organization::caller;
use crate::extract::{BareSession, Input, Session};
use crate::openapi::{OrganizationErrors, QueryErrors};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::MessageResponse;
use crate::wire::organization::{Team, TeamMember};

pub fn router() -> Group {
    Group::new()
        .route(route!(create_team), Policy::DEFAULT)
        .route(route!(update_team), Policy::DEFAULT)
        .route(route!(remove_team), Policy::DEFAULT)
        .route(route!(list_teams), Policy::DEFAULT)
        .route(route!(set_active_team), Policy::DEFAULT)
        .route(route!(list_user_teams), Policy::DEFAULT)
        .route(route!(list_team_members), Policy::DEFAULT)
        .route(route!(add_team_member), Policy::DEFAULT)
        .route(route!(remove_team_member), Policy::DEFAULT)
}

fn team(team: Option<pb::Team>) -> Result<Team, ApiError> {
    Ok(team.ok_or(base::INTERNAL_SERVER_ERROR)?.into())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateTeamBody {
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$"
    )]
    name: String,
    organization_id: Option<String>,
}

/// Creates a team in the named (or active) organization: `team:create`.
#[utoipa::path(post, path = "/organization/create-team", tag = "team", request_body = CreateTeamBody,
    responses((status = 200, body = Team, description = "The new team"), OrganizationErrors))]
async fn create_team(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<CreateTeamBody, BareSession>,
) -> Result<Reply, ApiError> {
    let created = state
        .teams
        .clone()
        .create_team(pb::CreateTeamRequest {
            caller: caller(&auth.0),
            name: body.name,
            organization_id: nonempty(body.organization_id),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&team(created.team)?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTeamData {
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$"
    )]
    name: Option<String>,
    /// The team's organization; the active one when absent.
    organization_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTeamBody {
    team_id: String,
    #[schema(inline)]
    data: UpdateTeamData,
}

/// Renames a team: `team:update`.
#[utoipa::path(post, path = "/organization/update-team", tag = "team", request_body = UpdateTeamBody,
    responses((status = 200, body = Team, description = "The team as it is now"), OrganizationErrors))]
async fn update_team(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UpdateTeamBody, Session>,
) -> Result<Reply, ApiError> {
    let updated = state
        .teams
        .clone()
        .update_team(pb::UpdateTeamRequest {
            caller: caller(&auth),
            team_id: body.team_id,
            name: body.data.name,
            organization_id: nonempty(body.data.organization_id),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&team(updated.team)?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveTeamBody {
    team_id: String,
    organization_id: Option<String>,
}

/// Removes a team (`team:delete`): never the caller's active team, nor the last one.
#[utoipa::path(post, path = "/organization/remove-team", tag = "team", request_body = RemoveTeamBody,
    responses((status = 200, body = MessageResponse, description = "`{\"message\": \"Team removed successfully.\"}`"), OrganizationErrors))]
async fn remove_team(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<RemoveTeamBody, BareSession>,
) -> Result<Reply, ApiError> {
    state
        .teams
        .clone()
        .remove_team(pb::RemoveTeamRequest {
            caller: caller(&auth.0),
            team_id: body.team_id,
            organization_id: nonempty(body.organization_id),
        })
        .await?;
    Ok(Reply::json(&MessageResponse {
        message: "Team removed successfully.",
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListTeamsQuery {
    organization_id: Option<String>,
}

/// The named (or active) organization's teams, oldest first, for its members.
#[utoipa::path(get, path = "/organization/list-teams", tag = "team",
    params(("organizationId" = Option<String>, Query)),
    responses((status = 200, body = Vec<Team>, description = "The teams"), QueryErrors))]
async fn list_teams(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListTeamsQuery, Session>,
) -> Result<Reply, ApiError> {
    let teams = state
        .teams
        .clone()
        .list_teams(pb::ListTeamsRequest {
            caller: caller(&auth),
            organization_id: nonempty(body.organization_id),
        })
        .await?
        .into_inner()
        .teams;
    Ok(Reply::json(
        &teams.into_iter().map(Team::from).collect::<Vec<_>>(),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetActiveTeamBody {
    /// A team of the active organization, or `null` for none; absent (or empty) re-affirms
    /// the current one.
    #[schema(value_type = Option<String>)]
    #[serde(default, deserialize_with = "present")]
    team_id: Option<Value>,
}

/// Makes one of the caller's teams (or none) the active team of their session, and issues
/// the session cookies again so the cookie cache shows it.
#[utoipa::path(post, path = "/organization/set-active-team", tag = "team", request_body = Option<SetActiveTeamBody>,
    responses((status = 200, body = Option<Team>, description = "The active team now, or `null`"), OrganizationErrors))]
async fn set_active_team(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<SetActiveTeamBody, Session>,
) -> Result<Reply, ApiError> {
    // An empty id is "the current team", as an absent one (better-auth).
    let (set, team_id) = match body.team_id {
        Some(Value::String(id)) if !id.is_empty() => (true, Some(id)),
        Some(Value::Null) => (true, None),
        _ => (false, None),
    };
    let answer = state
        .teams
        .clone()
        .set_active_team(pb::SetActiveTeamRequest {
            caller: caller(&auth),
            set,
            team_id,
        })
        .await?
        .into_inner();
    let mut reply = match answer.team {
        Some(active) => Reply::json(&Team::from(active)),
        None => Reply::json(&Value::Null),
    };
    if answer.changed {
        reply.set_cookies(reissue(&state, &meta, &auth).await?);
    }
    Ok(reply)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListUserTeamsQuery {
    /// Another member of the organization (for who may update members); the caller when absent.
    user_id: Option<String>,
    organization_id: Option<String>,
}

/// The teams a user is in: the caller's own (in every organization unless one is named), or
/// another member's.
#[utoipa::path(get, path = "/organization/list-user-teams", tag = "team",
    params(("userId" = Option<String>, Query), ("organizationId" = Option<String>, Query)),
    responses((status = 200, body = Vec<Team>, description = "The user's teams"), QueryErrors))]
async fn list_user_teams(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListUserTeamsQuery, Session>,
) -> Result<Reply, ApiError> {
    let teams = state
        .teams
        .clone()
        .list_user_teams(pb::ListUserTeamsRequest {
            caller: caller(&auth),
            user_id: nonempty(body.user_id),
            organization_id: nonempty(body.organization_id),
        })
        .await?
        .into_inner()
        .teams;
    Ok(Reply::json(
        &teams.into_iter().map(Team::from).collect::<Vec<_>>(),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListTeamMembersQuery {
    /// The caller's active team when absent.
    team_id: Option<String>,
}

/// The members of a team the caller is in.
#[utoipa::path(get, path = "/organization/list-team-members", tag = "team",
    params(("teamId" = Option<String>, Query)),
    responses((status = 200, body = Vec<TeamMember>, description = "The team's members"), QueryErrors))]
async fn list_team_members(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListTeamMembersQuery, Session>,
) -> Result<Reply, ApiError> {
    let members = state
        .teams
        .clone()
        .list_team_members(pb::ListTeamMembersRequest {
            caller: caller(&auth),
            team_id: nonempty(body.team_id),
        })
        .await?
        .into_inner()
        .members;
    Ok(Reply::json(
        &members
            .into_iter()
            .map(TeamMember::from)
            .collect::<Vec<_>>(),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeamMemberBody {
    team_id: String,
    /// Coerced to a string, as better-auth does (`5` is the user "5", who is no member).
    #[schema(value_type = Value)]
    user_id: Value,
    organization_id: Option<String>,
}

/// Puts a member of the organization in one of its teams (`member:update`); one already in
/// it gets their place back.
#[utoipa::path(post, path = "/organization/add-team-member", tag = "team", request_body = TeamMemberBody,
    responses((status = 200, body = TeamMember, description = "The user's place in the team"), OrganizationErrors))]
async fn add_team_member(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<TeamMemberBody, Session>,
) -> Result<Reply, ApiError> {
    let added = state
        .teams
        .clone()
        .add_team_member(pb::AddTeamMemberRequest {
            caller: caller(&auth),
            team_id: body.team_id,
            user_id: user_id(&body.user_id),
            organization_id: nonempty(body.organization_id),
        })
        .await?
        .into_inner()
        .member
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&TeamMember::from(added)))
}

/// Takes a user out of a team (`member:delete`).
#[utoipa::path(post, path = "/organization/remove-team-member", tag = "team", request_body = TeamMemberBody,
    responses((status = 200, body = MessageResponse, description = "`{\"message\": \"Team member removed successfully.\"}`"), OrganizationErrors))]
async fn remove_team_member(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<TeamMemberBody, Session>,
) -> Result<Reply, ApiError> {
    state
        .teams
        .clone()
        .remove_team_member(pb::RemoveTeamMemberRequest {
            caller: caller(&auth),
            team_id: body.team_id,
            user_id: user_id(&body.user_id),
            organization_id: nonempty(body.organization_id),
        })
        .await?;
    Ok(Reply::json(&MessageResponse {
        message: "Team member removed successfully.",
    }))
}
