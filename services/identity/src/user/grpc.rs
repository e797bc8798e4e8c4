//! `gatehouse.identity.v1.UserService`.

use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::user_service_server::{UserService, UserServiceServer};
use tonic::{Request, Response, Status};

use super::Users;

pub fn server(users: Users) -> UserServiceServer<Users> {
    UserServiceServer::new(users)
}

#[tonic::async_trait]
impl UserService for Users {
    async fn get_user(
        &self,
        request: Request<pb::GetUserRequest>,
    ) -> Result<Response<pb::GetUserResponse>, Status> {
        let user = self.get(&request.into_inner().id).await?;
        Ok(Response::new(pb::GetUserResponse {
            user: Some(user.into()),
        }))
    }

    async fn get_users(
        &self,
        request: Request<pb::GetUsersRequest>,
    ) -> Result<Response<pb::GetUsersResponse>, Status> {
        let users = self.get_many(&request.into_inner().ids).await?;
        Ok(Response::new(pb::GetUsersResponse {
            users: users.into_iter().map(Into::into).collect(),
        }))
    }

    async fn get_user_by_email(
        &self,
        request: Request<pb::GetUserByEmailRequest>,
    ) -> Result<Response<pb::GetUserByEmailResponse>, Status> {
        let user = self.get_by_email(&request.into_inner().email).await?;
        Ok(Response::new(pb::GetUserByEmailResponse {
            user: Some(user.into()),
        }))
    }

    async fn confirm_email(
        &self,
        request: Request<pb::ConfirmEmailRequest>,
    ) -> Result<Response<pb::ConfirmEmailResponse>, Status> {
        let r = request.into_inner();
        let user = Users::confirm_email(self, &r.user_id, &r.email).await?;
        Ok(Response::new(pb::ConfirmEmailResponse {
            user: Some(user.into()),
        }))
    }
}
