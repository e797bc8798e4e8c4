//! `gatehouse.organization.v1.MemberService`.

use gatehouse_kit::access::Request as Wanted;
use gatehouse_kit::errors::base;
use gatehouse_proto::organization::v1 as pb;
use gatehouse_proto::organization::v1::member_service_server::{
    MemberService, MemberServiceServer,
};
use tonic::{Request, Response, Status};

use super::Members;
use crate::organization::grpc::{caller, named};

pub fn server(members: Members) -> MemberServiceServer<Members> {
    MemberServiceServer::new(members)
}

#[tonic::async_trait]
impl MemberService for Members {
    async fn add_member(
        &self,
        request: Request<pb::AddMemberRequest>,
    ) -> Result<Response<pb::AddMemberResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("user_id is required")
                .into());
        }
        let on_behalf = r.caller.map(|c| caller(Some(c))).transpose()?;
        let member = self
            .add(
                on_behalf.as_ref(),
                &r.user_id,
                &r.roles,
                r.organization_id.as_deref(),
                r.team_id.as_deref(),
            )
            .await?;
        Ok(Response::new(pb::AddMemberResponse {
            member: Some(member.into()),
        }))
    }

    async fn list_members(
        &self,
        request: Request<pb::ListMembersRequest>,
    ) -> Result<Response<pb::ListMembersResponse>, Status> {
        let r = request.into_inner();
        let query = super::query::list_query(&r, self.membership_limit())?;
        let caller = caller(r.caller)?;
        let (members, total) = self
            .list(
                &caller,
                named(&r.organization_id, &r.organization_slug),
                &query,
            )
            .await?;
        Ok(Response::new(pb::ListMembersResponse {
            members: members.into_iter().map(Into::into).collect(),
            total: u32::try_from(total).unwrap_or(u32::MAX),
        }))
    }

    async fn get_active_member(
        &self,
        request: Request<pb::GetActiveMemberRequest>,
    ) -> Result<Response<pb::GetActiveMemberResponse>, Status> {
        let caller = caller(request.into_inner().caller)?;
        let member = self.active_member(&caller).await?;
        Ok(Response::new(pb::GetActiveMemberResponse {
            member: Some(member.into()),
        }))
    }

    async fn get_active_member_role(
        &self,
        request: Request<pb::GetActiveMemberRoleRequest>,
    ) -> Result<Response<pb::GetActiveMemberRoleResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let role = self
            .active_role(
                &caller,
                r.user_id.as_deref(),
                named(&r.organization_id, &r.organization_slug),
            )
            .await?;
        Ok(Response::new(pb::GetActiveMemberRoleResponse { role }))
    }

    async fn update_member_role(
        &self,
        request: Request<pb::UpdateMemberRoleRequest>,
    ) -> Result<Response<pb::UpdateMemberRoleResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let member = self
            .update_role(
                &caller,
                &r.member_id,
                &r.roles,
                r.organization_id.as_deref(),
            )
            .await?;
        Ok(Response::new(pb::UpdateMemberRoleResponse {
            member: Some(member.into()),
        }))
    }

    async fn remove_member(
        &self,
        request: Request<pb::RemoveMemberRequest>,
    ) -> Result<Response<pb::RemoveMemberResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let removed = self
            .remove(&caller, &r.member_id_or_email, r.organization_id.as_deref())
            .await?;
        Ok(Response::new(pb::RemoveMemberResponse {
            member: Some(removed.into()),
        }))
    }

    async fn leave_organization(
        &self,
        request: Request<pb::LeaveOrganizationRequest>,
    ) -> Result<Response<pb::LeaveOrganizationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let member = self.leave(&caller, &r.organization_id).await?;
        Ok(Response::new(pb::LeaveOrganizationResponse {
            member: Some(member.into()),
        }))
    }

    async fn has_permission(
        &self,
        request: Request<pb::HasPermissionRequest>,
    ) -> Result<Response<pb::HasPermissionResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let value: serde_json::Value = serde_json::from_str(&r.permissions_json)
            .map_err(|_| base::VALIDATION_ERROR.with_message("[body.permissions] Invalid input"))?;
        let wanted = Wanted::from_json(&value).map_err(|error| {
            base::VALIDATION_ERROR.with_message(format!("[body.permissions] {error}"))
        })?;
        let success = Members::has_permission(
            self,
            &caller,
            r.organization_id.as_deref(),
            &wanted,
            r.owner_has_every_permission,
        )
        .await?;
        Ok(Response::new(pb::HasPermissionResponse { success }))
    }
}
