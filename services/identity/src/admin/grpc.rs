//! `gatehouse.identity.v1.AdminService`.

use std::time::Duration;

use gatehouse_kit::errors::{ErrorCode, admin as codes, base};
use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::admin_service_server::{AdminService, AdminServiceServer};
use serde_json::{Map, Value};
use tonic::{Request, Response, Status};

use super::{Admin, NewUserByAdmin, query};
use crate::error::IdentityError;

pub fn server(admin: Admin) -> AdminServiceServer<Admin> {
    AdminServiceServer::new(admin)
}

fn required(value: &str, field: &str) -> Result<(), Status> {
    if value.is_empty() {
        return Err(base::VALIDATION_ERROR
            .with_message(format!("{field} is required"))
            .into());
    }
    Ok(())
}

/// A JSON object field (`data`); empty text is an empty object.
fn object(raw: &str, field: &str) -> Result<Map<String, Value>, Status> {
    if raw.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(raw) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(base::VALIDATION_ERROR
            .with_message(format!("[body.{field}] Invalid input: expected record"))
            .into()),
    }
}

fn user(user: crate::user::User) -> Option<pb::User> {
    Some(user.into())
}

/// The refusal codes the gateway may ask Authorize to answer with, and each one's refusal of
/// an action on another admin.
const REFUSALS: &[(ErrorCode, ErrorCode)] = &[
    (
        codes::YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS,
        // Listing changes nothing: never asked with a target.
        codes::YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS,
    ),
    (
        codes::YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS,
        codes::YOU_CANNOT_REVOKE_ADMINS_SESSIONS,
    ),
];

#[tonic::async_trait]
impl AdminService for Admin {
    async fn create_user(
        &self,
        request: Request<pb::CreateUserRequest>,
    ) -> Result<Response<pb::CreateUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        gatehouse_kit::validate::check_name("name", &r.name)?;
        let new = NewUserByAdmin {
            email: r.email,
            password: r.password,
            name: r.name,
            roles: r.has_roles.then_some(r.roles),
            data: object(&r.data_json, "data")?,
        };
        let created = Admin::create_user(self, &r.actor_id, new).await?;
        Ok(Response::new(pb::CreateUserResponse {
            user: user(created),
        }))
    }

    async fn list_users(
        &self,
        request: Request<pb::ListUsersRequest>,
    ) -> Result<Response<pb::ListUsersResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let list = query::list_query(&r).map_err(IdentityError::Refused)?;
        let (users, total) = Admin::list_users(self, &r.actor_id, &list).await?;
        Ok(Response::new(pb::ListUsersResponse {
            users: users.into_iter().map(Into::into).collect(),
            total,
        }))
    }

    async fn inspect_user(
        &self,
        request: Request<pb::InspectUserRequest>,
    ) -> Result<Response<pb::InspectUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let found = Admin::inspect_user(self, &r.actor_id, &r.user_id).await?;
        Ok(Response::new(pb::InspectUserResponse { user: user(found) }))
    }

    async fn set_role(
        &self,
        request: Request<pb::SetRoleRequest>,
    ) -> Result<Response<pb::SetRoleResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let changed = Admin::set_role(self, &r.actor_id, &r.user_id, &r.roles).await?;
        Ok(Response::new(pb::SetRoleResponse {
            user: user(changed),
        }))
    }

    async fn edit_user(
        &self,
        request: Request<pb::EditUserRequest>,
    ) -> Result<Response<pb::EditUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let data = object(&r.data_json, "data")?;
        if let Some(Value::String(name)) = data.get("name") {
            gatehouse_kit::validate::check_name("data.name", name)?;
        }
        let edited = Admin::edit_user(self, &r.actor_id, &r.user_id, data).await?;
        Ok(Response::new(pb::EditUserResponse {
            user: user(edited.user),
            sessions_ended: edited.sessions_ended,
        }))
    }

    async fn ban_user(
        &self,
        request: Request<pb::BanUserRequest>,
    ) -> Result<Response<pb::BanUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let expires_in = r.expires_in_seconds.map(Duration::from_secs);
        let banned = Admin::ban_user(self, &r.actor_id, &r.user_id, r.reason, expires_in).await?;
        Ok(Response::new(pb::BanUserResponse { user: user(banned) }))
    }

    async fn unban_user(
        &self,
        request: Request<pb::UnbanUserRequest>,
    ) -> Result<Response<pb::UnbanUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let unbanned = Admin::unban_user(self, &r.actor_id, &r.user_id).await?;
        Ok(Response::new(pb::UnbanUserResponse {
            user: user(unbanned),
        }))
    }

    async fn remove_user(
        &self,
        request: Request<pb::RemoveUserRequest>,
    ) -> Result<Response<pb::RemoveUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        Admin::remove_user(self, &r.actor_id, &r.user_id).await?;
        Ok(Response::new(pb::RemoveUserResponse {}))
    }

    async fn set_user_password(
        &self,
        request: Request<pb::SetUserPasswordRequest>,
    ) -> Result<Response<pb::SetUserPasswordResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        Admin::set_user_password(self, &r.actor_id, &r.user_id, &r.new_password).await?;
        Ok(Response::new(pb::SetUserPasswordResponse {}))
    }

    async fn reset_two_factor(
        &self,
        request: Request<pb::ResetTwoFactorRequest>,
    ) -> Result<Response<pb::ResetTwoFactorResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let user = Admin::reset_two_factor(self, &r.actor_id, &r.user_id).await?;
        Ok(Response::new(pb::ResetTwoFactorResponse {
            user: Some(user.into()),
        }))
    }

    async fn impersonate_user(
        &self,
        request: Request<pb::ImpersonateUserRequest>,
    ) -> Result<Response<pb::ImpersonateUserResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let (target, lifetime) = Admin::impersonate(self, &r.actor_id, &r.user_id).await?;
        Ok(Response::new(pb::ImpersonateUserResponse {
            user: user(target),
            session_lifetime_seconds: u32::try_from(lifetime.as_secs()).unwrap_or(u32::MAX),
        }))
    }

    async fn authorize(
        &self,
        request: Request<pb::AuthorizeRequest>,
    ) -> Result<Response<pb::AuthorizeResponse>, Status> {
        let r = request.into_inner();
        required(&r.actor_id, "actor_id")?;
        let (refusal, on_admin) = REFUSALS
            .iter()
            .copied()
            .find(|(code, _)| code.code() == r.refusal)
            .ok_or_else(|| {
                Status::from(
                    base::VALIDATION_ERROR.with_message(format!("unknown refusal {}", r.refusal)),
                )
            })?;
        let wanted: Value = serde_json::from_str(&r.permissions_json).map_err(|_| {
            Status::from(base::VALIDATION_ERROR.with_message("permissions_json is not JSON"))
        })?;
        let wanted = gatehouse_kit::access::Request::from_json(&wanted).map_err(|error| {
            Status::from(base::VALIDATION_ERROR.with_message(error.to_string()))
        })?;
        let actor = Admin::authorize(self, &r.actor_id, &wanted, refusal).await?;
        if let Some(target) = r.target_user_id.as_deref() {
            self.authorize_on(&actor, target, on_admin).await?;
        }
        Ok(Response::new(pb::AuthorizeResponse {}))
    }

    async fn has_permission(
        &self,
        request: Request<pb::HasPermissionRequest>,
    ) -> Result<Response<pb::HasPermissionResponse>, Status> {
        let r = request.into_inner();
        let wanted: Value = serde_json::from_str(&r.permissions_json).map_err(|_| {
            Status::from(base::VALIDATION_ERROR.with_message("permissions_json is not JSON"))
        })?;
        let success = Admin::has_permission(
            self,
            r.actor_id.as_deref(),
            r.user_id.as_deref(),
            r.role.as_deref(),
            &wanted,
        )
        .await?;
        Ok(Response::new(pb::HasPermissionResponse { success }))
    }
}
