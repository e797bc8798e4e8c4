//! `gatehouse.session.v1.SessionService`: the gRPC face of [`Sessions`].

use gatehouse_proto::session::v1 as pb;
use gatehouse_proto::session::v1::session_service_server::{SessionService, SessionServiceServer};
use tonic::{Request, Response, Status};

use crate::sessions::{NewSession, Sessions};

pub const SERVICE_NAME: &str = "gatehouse.session.v1.SessionService";

pub fn server(sessions: Sessions) -> SessionServiceServer<SessionGrpc> {
    SessionServiceServer::new(SessionGrpc { sessions })
}

pub struct SessionGrpc {
    sessions: Sessions,
}

#[tonic::async_trait]
impl SessionService for SessionGrpc {
    async fn create_session(
        &self,
        request: Request<pb::CreateSessionRequest>,
    ) -> Result<Response<pb::CreateSessionResponse>, Status> {
        let r = request.into_inner();
        if r.user_id.is_empty() {
            return Err(gatehouse_kit::ErrorCode::ValidationError
                .status_with_message("user_id is required"));
        }
        let session = self
            .sessions
            .create(NewSession {
                user_id: r.user_id,
                ip_address: r.ip_address,
                user_agent: r.user_agent,
                remember_me: r.remember_me,
            })
            .await?;
        Ok(Response::new(pb::CreateSessionResponse {
            session: Some(session),
        }))
    }

    async fn get_session(
        &self,
        request: Request<pb::GetSessionRequest>,
    ) -> Result<Response<pb::GetSessionResponse>, Status> {
        let r = request.into_inner();
        let response = match self.sessions.get(&r.token, r.disable_refresh).await? {
            Some(found) => pb::GetSessionResponse {
                session: Some(found.session),
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
        self.sessions.revoke(&request.into_inner().token).await?;
        Ok(Response::new(pb::RevokeSessionResponse {}))
    }
}
