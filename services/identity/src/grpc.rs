//! `gatehouse.identity.v1.IdentityService`: the gRPC face of [`Identity`].

use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::identity_service_server::{
    IdentityService, IdentityServiceServer,
};
use tonic::{Request, Response, Status};

use crate::domain::{Identity, SignUp};
use crate::store::User;

pub const SERVICE_NAME: &str = "gatehouse.identity.v1.IdentityService";

pub fn server(identity: Identity) -> IdentityServiceServer<IdentityGrpc> {
    IdentityServiceServer::new(IdentityGrpc { identity })
}

pub struct IdentityGrpc {
    identity: Identity,
}

pub fn to_proto(user: User) -> pb::User {
    pb::User {
        id: user.id,
        name: user.name,
        email: user.email,
        email_verified: user.email_verified,
        image: user.image,
        created_at_unix_ms: user.created_at.timestamp_millis(),
        updated_at_unix_ms: user.updated_at.timestamp_millis(),
    }
}

#[tonic::async_trait]
impl IdentityService for IdentityGrpc {
    async fn sign_up_email(
        &self,
        request: Request<pb::SignUpEmailRequest>,
    ) -> Result<Response<pb::SignUpEmailResponse>, Status> {
        let r = request.into_inner();
        let user = self
            .identity
            .sign_up_email(SignUp {
                name: r.name,
                email: r.email,
                password: r.password,
                image: r.image,
            })
            .await?;
        Ok(Response::new(pb::SignUpEmailResponse {
            user: Some(to_proto(user)),
        }))
    }

    async fn sign_in_email(
        &self,
        request: Request<pb::SignInEmailRequest>,
    ) -> Result<Response<pb::SignInEmailResponse>, Status> {
        let r = request.into_inner();
        let user = self.identity.sign_in_email(&r.email, &r.password).await?;
        Ok(Response::new(pb::SignInEmailResponse {
            user: Some(to_proto(user)),
        }))
    }

    async fn get_user(
        &self,
        request: Request<pb::GetUserRequest>,
    ) -> Result<Response<pb::GetUserResponse>, Status> {
        let user = self.identity.get_user(&request.into_inner().id).await?;
        Ok(Response::new(pb::GetUserResponse {
            user: Some(to_proto(user)),
        }))
    }
}
