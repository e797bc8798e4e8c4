//! `gatehouse.identity.v1.EmailVerificationService`.

use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::email_verification_service_server::{
    EmailVerificationService, EmailVerificationServiceServer,
};
use tonic::{Request, Response, Status};

use super::EmailVerification;

pub fn server(rules: EmailVerification) -> EmailVerificationServiceServer<EmailVerification> {
    EmailVerificationServiceServer::new(rules)
}

#[tonic::async_trait]
impl EmailVerificationService for EmailVerification {
    async fn send_verification_email(
        &self,
        request: Request<pb::SendVerificationEmailRequest>,
    ) -> Result<Response<pb::SendVerificationEmailResponse>, Status> {
        let r = request.into_inner();
        self.send(
            &r.email,
            r.caller_user_id.as_deref(),
            r.callback_url.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::SendVerificationEmailResponse {}))
    }

    async fn change_email(
        &self,
        request: Request<pb::ChangeEmailRequest>,
    ) -> Result<Response<pb::ChangeEmailResponse>, Status> {
        let r = request.into_inner();
        let (user, changed) = EmailVerification::change_email(
            self,
            &r.user_id,
            &r.new_email,
            r.callback_url.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::ChangeEmailResponse {
            user: Some(user.into()),
            changed,
        }))
    }

    async fn verify_email(
        &self,
        request: Request<pb::VerifyEmailRequest>,
    ) -> Result<Response<pb::VerifyEmailResponse>, Status> {
        let r = request.into_inner();
        let verified = self
            .verify(
                &r.token,
                r.caller_user_id.as_deref(),
                r.callback_url.as_deref(),
            )
            .await?;
        Ok(Response::new(pb::VerifyEmailResponse {
            user: Some(verified.user.into()),
            sign_in: verified.sign_in,
            email_changed: verified.email_changed,
            change_confirmed: verified.change_confirmed,
        }))
    }
}
