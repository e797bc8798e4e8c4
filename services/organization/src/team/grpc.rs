//! `gatehouse.organization.v1.TeamService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::organization::v1 as pb;
use gatehouse_proto::organization::v1::team_service_server::{TeamService, TeamServiceServer};
use tonic::{Request, Response, Status};

use super::Teams;
use crate::organization::grpc::caller;

pub fn server(teams: Teams) -> TeamServiceServer<Teams> {
    TeamServiceServer::new(teams)
}

/// A required id; the gateway has validated the body, so an empty one is a caller's bug.
fn required<'a>(value: &'a str, name: &str) -> Result<&'a str, Status> {
    if value.is_empty() {
        return Err(base::VALIDATION_ERROR
            .with_message(format!("{name} is required"))
            .into());
    }
    Ok(value)
}

#[tonic::async_trait]
impl TeamService for Teams {
    async fn create_team(
        &self,
        request: Request<pb::CreateTeamRequest>,
    ) -> Result<Response<pb::CreateTeamResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        required(&r.name, "name")?;
        gatehouse_kit::validate::check_name("name", &r.name)?;
        let team = self
            .create(&caller, r.name, r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::CreateTeamResponse {
            team: Some(team.into()),
        }))
    }

    async fn update_team(
        &self,
        request: Request<pb::UpdateTeamRequest>,
    ) -> Result<Response<pb::UpdateTeamResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let team_id = required(&r.team_id, "team_id")?;
        if let Some(name) = &r.name {
            gatehouse_kit::validate::check_name("data.name", name)?;
        }
        let team = self
            .update(&caller, team_id, r.name, r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::UpdateTeamResponse {
            team: Some(team.into()),
        }))
    }

    async fn remove_team(
        &self,
        request: Request<pb::RemoveTeamRequest>,
    ) -> Result<Response<pb::RemoveTeamResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let team_id = required(&r.team_id, "team_id")?;
        self.remove(&caller, team_id, r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::RemoveTeamResponse {}))
    }

    async fn list_teams(
        &self,
        request: Request<pb::ListTeamsRequest>,
    ) -> Result<Response<pb::ListTeamsResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let teams = self.list(&caller, r.organization_id.as_deref()).await?;
        Ok(Response::new(pb::ListTeamsResponse {
            teams: teams.into_iter().map(Into::into).collect(),
        }))
    }

    async fn set_active_team(
        &self,
        request: Request<pb::SetActiveTeamRequest>,
    ) -> Result<Response<pb::SetActiveTeamResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let (team, changed) = self
            .set_active(&caller, r.set, r.team_id.as_deref())
            .await?;
        Ok(Response::new(pb::SetActiveTeamResponse {
            team: team.map(Into::into),
            changed,
        }))
    }

    async fn list_user_teams(
        &self,
        request: Request<pb::ListUserTeamsRequest>,
    ) -> Result<Response<pb::ListUserTeamsResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let teams = self
            .list_for_user(&caller, r.user_id.as_deref(), r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::ListUserTeamsResponse {
            teams: teams.into_iter().map(Into::into).collect(),
        }))
    }

    async fn list_team_members(
        &self,
        request: Request<pb::ListTeamMembersRequest>,
    ) -> Result<Response<pb::ListTeamMembersResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let members = self.members(&caller, r.team_id.as_deref()).await?;
        Ok(Response::new(pb::ListTeamMembersResponse {
            members: members.into_iter().map(Into::into).collect(),
        }))
    }

    async fn add_team_member(
        &self,
        request: Request<pb::AddTeamMemberRequest>,
    ) -> Result<Response<pb::AddTeamMemberResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let team_id = required(&r.team_id, "team_id")?;
        let user_id = required(&r.user_id, "user_id")?;
        let member = self
            .add_member(&caller, team_id, user_id, r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::AddTeamMemberResponse {
            member: Some(member.into()),
        }))
    }

    async fn remove_team_member(
        &self,
        request: Request<pb::RemoveTeamMemberRequest>,
    ) -> Result<Response<pb::RemoveTeamMemberResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let team_id = required(&r.team_id, "team_id")?;
        let user_id = required(&r.user_id, "user_id")?;
        self.remove_member(&caller, team_id, user_id, r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::RemoveTeamMemberResponse {}))
    }
}
