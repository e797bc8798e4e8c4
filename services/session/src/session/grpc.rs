//! `gatehouse.session.v1.SessionService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::session::v1 as pb;
use gatehouse_proto::session::v1::session_service_server::{SessionService, SessionServiceServer};
use tonic::{Request, Response, Status};

use super::store::ActiveChange;
use super::{NewSession, Sessions};

pub fn server(sessions: Sessions) -> SessionServiceServer<Sessions> {
    SessionServiceServer::new(sessions)
}

#[tonic::async_trait]
impl SessionService for Sessions {
    async fn create_session(
        &self,
        request: Request<pb::CreateSessionRequest>,
    ) -> Result<Response<pb::CreateSessionResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("user_id is required")
                .into());
        }
        let session = self
            .create(NewSession {
                user_id: r.user_id,
                ip_address: r.ip_address,
                user_agent: r.user_agent,
                remember_me: r.remember_me,
                impersonation: r.impersonated_by.map(|admin| {
                    let seconds = r.lifetime_seconds.unwrap_or(3600);
                    (admin, std::time::Duration::from_secs(seconds.into()))
                }),
            })
            .await?;
        Ok(Response::new(pb::CreateSessionResponse {
            session: Some(session.into()),
        }))
    }

    async fn get_session(
        &self,
        request: Request<pb::GetSessionRequest>,
    ) -> Result<Response<pb::GetSessionResponse>, Status> {
        let r = request.into_inner();
        let response = match self.get(&r.token, r.disable_refresh).await? {
            Some(found) => pb::GetSessionResponse {
                session: Some(found.session.into()),
                user: Some(found.user),
                refreshed: found.refreshed,
                fresh: found.fresh,
            },
            None => pb::GetSessionResponse::default(),
        };
        Ok(Response::new(response))
    }

    async fn revoke_session(
        &self,
        request: Request<pb::RevokeSessionRequest>,
    ) -> Result<Response<pb::RevokeSessionResponse>, Status> {
        let r = request.into_inner();
        let owner = (!r.user_id.is_empty()).then_some(r.user_id.as_str());
        let revoked = self.revoke(&r.token, owner).await?;
        Ok(Response::new(pb::RevokeSessionResponse { revoked }))
    }

    async fn revoke_user_sessions(
        &self,
        request: Request<pb::RevokeUserSessionsRequest>,
    ) -> Result<Response<pb::RevokeUserSessionsResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("user_id is required")
                .into());
        }
        let revoked = self
            .revoke_all(&r.user_id, r.except_token.as_deref())
            .await?;
        Ok(Response::new(pb::RevokeUserSessionsResponse {
            revoked: u32::try_from(revoked).unwrap_or(u32::MAX),
        }))
    }

    async fn list_sessions(
        &self,
        request: Request<pb::ListSessionsRequest>,
    ) -> Result<Response<pb::ListSessionsResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("user_id is required")
                .into());
        }
        let sessions = if r.all {
            self.list_all(&r.user_id).await?
        } else {
            self.list(&r.user_id).await?
        };
        Ok(Response::new(pb::ListSessionsResponse {
            sessions: sessions.into_iter().map(Into::into).collect(),
        }))
    }

    async fn evict_user(
        &self,
        request: Request<pb::EvictUserRequest>,
    ) -> Result<Response<pb::EvictUserResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(base::VALIDATION_ERROR
                .with_message("user_id is required")
                .into());
        }
        Sessions::evict_user(self, &r.user_id).await?;
        Ok(Response::new(pb::EvictUserResponse {}))
    }

    async fn set_active(
        &self,
        request: Request<pb::SetActiveRequest>,
    ) -> Result<Response<pb::SetActiveResponse>, Status> {
        let r = request.into_inner();
        let change = ActiveChange {
            organization: r.organization.map(|active| active.id),
            team: r.team.map(|active| active.id),
        };
        let session = Sessions::set_active(self, &r.token, &change).await?;
        Ok(Response::new(pb::SetActiveResponse {
            session: session.map(Into::into),
        }))
    }
}
