//! `gatehouse.identity.v1.AccountService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::account_service_server::{AccountService, AccountServiceServer};
use tonic::{Request, Response, Status};

use super::{Accounts, ProfileUpdate};

pub fn server(accounts: Accounts) -> AccountServiceServer<Accounts> {
    AccountServiceServer::new(accounts)
}

fn require_user(user_id: &str) -> Result<(), Status> {
    if user_id.is_empty() {
        return Err(base::VALIDATION_ERROR
            .with_message("user_id is required")
            .into());
    }
    Ok(())
}

#[tonic::async_trait]
impl AccountService for Accounts {
    async fn update_user(
        &self,
        request: Request<pb::UpdateUserRequest>,
    ) -> Result<Response<pb::UpdateUserResponse>, Status> {
        let r = request.into_inner();
        require_user(&r.user_id)?;
        if let Some(name) = &r.name {
            gatehouse_kit::validate::check_name("name", name)?;
        }
        let image = if r.clear_image {
            Some(None)
        } else {
            r.image.map(Some)
        };
        let update = ProfileUpdate {
            name: r.name,
            image,
            username: r.username,
            display_username: r.display_username,
            language: r.language,
        };
        let user = Accounts::update_user(self, &r.user_id, update).await?;
        Ok(Response::new(pb::UpdateUserResponse {
            user: Some(user.into()),
        }))
    }

    async fn change_password(
        &self,
        request: Request<pb::ChangePasswordRequest>,
    ) -> Result<Response<pb::ChangePasswordResponse>, Status> {
        let r = request.into_inner();
        require_user(&r.user_id)?;
        let user =
            Accounts::change_password(self, &r.user_id, &r.current_password, &r.new_password)
                .await?;
        Ok(Response::new(pb::ChangePasswordResponse {
            user: Some(user.into()),
        }))
    }

    async fn set_password(
        &self,
        request: Request<pb::SetPasswordRequest>,
    ) -> Result<Response<pb::SetPasswordResponse>, Status> {
        let r = request.into_inner();
        require_user(&r.user_id)?;
        Accounts::set_password(self, &r.user_id, &r.new_password).await?;
        Ok(Response::new(pb::SetPasswordResponse {}))
    }

    async fn list_accounts(
        &self,
        request: Request<pb::ListAccountsRequest>,
    ) -> Result<Response<pb::ListAccountsResponse>, Status> {
        let r = request.into_inner();
        require_user(&r.user_id)?;
        let accounts = Accounts::list_accounts(self, &r.user_id).await?;
        Ok(Response::new(pb::ListAccountsResponse {
            accounts: accounts.into_iter().map(Into::into).collect(),
        }))
    }

    async fn delete_user(
        &self,
        request: Request<pb::DeleteUserRequest>,
    ) -> Result<Response<pb::DeleteUserResponse>, Status> {
        let r = request.into_inner();
        require_user(&r.user_id)?;
        let deleted = Accounts::delete_user(
            self,
            &r.user_id,
            crate::account::Deletion {
                password: r.password,
                token: r.token,
                fresh_session: r.fresh_session,
                callback: r.callback_url,
            },
        )
        .await?;
        Ok(Response::new(pb::DeleteUserResponse { deleted }))
    }

    async fn confirm_delete_user(
        &self,
        request: Request<pb::ConfirmDeleteUserRequest>,
    ) -> Result<Response<pb::ConfirmDeleteUserResponse>, Status> {
        let r = request.into_inner();
        require_user(&r.user_id)?;
        Accounts::confirm_delete_user(self, &r.user_id, &r.token).await?;
        Ok(Response::new(pb::ConfirmDeleteUserResponse {}))
    }
}
