//! `gatehouse.identity.v1.EmailPasswordService`.

use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::email_password_service_server::{
    EmailPasswordService, EmailPasswordServiceServer,
};
use tonic::{Request, Response, Status};

use super::{EmailPassword, SignUp};

pub fn server(rules: EmailPassword) -> EmailPasswordServiceServer<EmailPassword> {
    EmailPasswordServiceServer::new(rules)
}

#[tonic::async_trait]
impl EmailPasswordService for EmailPassword {
    async fn sign_up_email(
        &self,
        request: Request<pb::SignUpEmailRequest>,
    ) -> Result<Response<pb::SignUpEmailResponse>, Status> {
        let r = request.into_inner();
        gatehouse_kit::validate::check_name("name", &r.name)?;
        let user = self
            .sign_up(SignUp {
                name: r.name,
                email: r.email,
                password: r.password,
                image: r.image,
                username: r.username,
                display_username: r.display_username,
                language: r.language,
                callback_url: r.callback_url,
            })
            .await?;
        Ok(Response::new(pb::SignUpEmailResponse {
            user: Some(user.user.into()),
            sign_in: user.sign_in,
            verification_mail_sent: user.verification_mail_sent,
        }))
    }

    async fn sign_in_email(
        &self,
        request: Request<pb::SignInEmailRequest>,
    ) -> Result<Response<pb::SignInEmailResponse>, Status> {
        let r = request.into_inner();
        let user = self.sign_in(&r.email, &r.password).await?;
        Ok(Response::new(pb::SignInEmailResponse {
            user: Some(user.into()),
        }))
    }
}
