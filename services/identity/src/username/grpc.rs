//! `gatehouse.identity.v1.UsernameService`.

use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::username_service_server::{
    UsernameService, UsernameServiceServer,
};
use tonic::{Request, Response, Status};

use super::Usernames;

pub fn server(usernames: Usernames) -> UsernameServiceServer<Usernames> {
    UsernameServiceServer::new(usernames)
}

#[tonic::async_trait]
impl UsernameService for Usernames {
    async fn sign_in_username(
        &self,
        request: Request<pb::SignInUsernameRequest>,
    ) -> Result<Response<pb::SignInUsernameResponse>, Status> {
        let r = request.into_inner();
        let user = self.sign_in(&r.username, &r.password).await?;
        Ok(Response::new(pb::SignInUsernameResponse {
            user: Some(user.into()),
        }))
    }

    async fn is_username_available(
        &self,
        request: Request<pb::IsUsernameAvailableRequest>,
    ) -> Result<Response<pb::IsUsernameAvailableResponse>, Status> {
        let available = self.is_available(&request.into_inner().username).await?;
        Ok(Response::new(pb::IsUsernameAvailableResponse { available }))
    }
}
