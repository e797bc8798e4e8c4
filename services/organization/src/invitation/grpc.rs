//! `gatehouse.organization.v1.InvitationService`.

use gatehouse_proto::organization::v1 as pb;
use gatehouse_proto::organization::v1::invitation_service_server::{
    InvitationService, InvitationServiceServer,
};
use tonic::{Request, Response, Status};

use super::Invitations;
use super::rules::NewInvitation;
use crate::organization::grpc::caller;

pub fn server(invitations: Invitations) -> InvitationServiceServer<Invitations> {
    InvitationServiceServer::new(invitations)
}

#[tonic::async_trait]
impl InvitationService for Invitations {
    async fn create_invitation(
        &self,
        request: Request<pb::CreateInvitationRequest>,
    ) -> Result<Response<pb::CreateInvitationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let invitation = self
            .invite(
                &caller,
                NewInvitation {
                    email: &r.email,
                    roles: &r.roles,
                    organization_id: r.organization_id.as_deref(),
                    resend: r.resend,
                    team_ids: &r.team_ids,
                },
            )
            .await?;
        Ok(Response::new(pb::CreateInvitationResponse {
            invitation: Some(invitation.into()),
        }))
    }

    async fn accept_invitation(
        &self,
        request: Request<pb::AcceptInvitationRequest>,
    ) -> Result<Response<pb::AcceptInvitationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let accepted = self
            .accept(&caller, &r.invitation_id, r.token.as_deref())
            .await?;
        Ok(Response::new(pb::AcceptInvitationResponse {
            invitation: Some(accepted.invitation.into()),
            member: Some(accepted.member.into()),
            email_verified: accepted.email_verified,
        }))
    }

    async fn reject_invitation(
        &self,
        request: Request<pb::RejectInvitationRequest>,
    ) -> Result<Response<pb::RejectInvitationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let rejected = self
            .reject(&caller, &r.invitation_id, r.token.as_deref())
            .await?;
        Ok(Response::new(pb::RejectInvitationResponse {
            invitation: Some(rejected.invitation.into()),
            email_verified: rejected.email_verified,
        }))
    }

    async fn cancel_invitation(
        &self,
        request: Request<pb::CancelInvitationRequest>,
    ) -> Result<Response<pb::CancelInvitationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let invitation = self.cancel(&caller, &r.invitation_id).await?;
        Ok(Response::new(pb::CancelInvitationResponse {
            invitation: Some(invitation.into()),
        }))
    }

    async fn get_invitation(
        &self,
        request: Request<pb::GetInvitationRequest>,
    ) -> Result<Response<pb::GetInvitationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let details = self
            .get(&caller, &r.invitation_id, r.token.as_deref())
            .await?;
        Ok(Response::new(pb::GetInvitationResponse {
            details: Some(details.into()),
        }))
    }

    async fn list_invitations(
        &self,
        request: Request<pb::ListInvitationsRequest>,
    ) -> Result<Response<pb::ListInvitationsResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let invitations = self.list(&caller, r.organization_id.as_deref()).await?;
        Ok(Response::new(pb::ListInvitationsResponse {
            invitations: invitations.into_iter().map(Into::into).collect(),
        }))
    }

    async fn list_user_invitations(
        &self,
        request: Request<pb::ListUserInvitationsRequest>,
    ) -> Result<Response<pb::ListUserInvitationsResponse>, Status> {
        let caller = caller(request.into_inner().caller)?;
        let invitations = self.list_for_user(&caller).await?;
        Ok(Response::new(pb::ListUserInvitationsResponse {
            invitations: invitations.into_iter().map(Into::into).collect(),
        }))
    }
}
