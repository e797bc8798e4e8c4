//! `gatehouse.identity.v1.PasswordResetService`.

use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::password_reset_service_server::{
    PasswordResetService, PasswordResetServiceServer,
};
use tonic::{Request, Response, Status};

use super::PasswordReset;

pub fn server(rules: PasswordReset) -> PasswordResetServiceServer<PasswordReset> {
    PasswordResetServiceServer::new(rules)
}

#[tonic::async_trait]
impl PasswordResetService for PasswordReset {
    async fn request_password_reset(
        &self,
        request: Request<pb::RequestPasswordResetRequest>,
    ) -> Result<Response<pb::RequestPasswordResetResponse>, Status> {
        let r = request.into_inner();
        self.request(&r.email, r.redirect_to.as_deref()).await?;
        Ok(Response::new(pb::RequestPasswordResetResponse {}))
    }

    async fn check_reset_token(
        &self,
        request: Request<pb::CheckResetTokenRequest>,
    ) -> Result<Response<pb::CheckResetTokenResponse>, Status> {
        self.check(&request.into_inner().token).await?;
        Ok(Response::new(pb::CheckResetTokenResponse {}))
    }

    async fn reset_password(
        &self,
        request: Request<pb::ResetPasswordRequest>,
    ) -> Result<Response<pb::ResetPasswordResponse>, Status> {
        let r = request.into_inner();
        let reset = self.reset(&r.token, &r.new_password).await?;
        Ok(Response::new(pb::ResetPasswordResponse {
            user_id: reset.user_id,
            revoke_sessions: reset.revoke_sessions,
        }))
    }
}
