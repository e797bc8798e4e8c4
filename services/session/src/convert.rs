//! Domain types to and from the session service's proto messages: the one place they meet.

use gatehouse_kit::ids;
use gatehouse_proto::session::v1 as pb;

use crate::session::Session;

impl From<Session> for pb::Session {
    fn from(session: Session) -> Self {
        pb::Session {
            id: session.id,
            token: session.token,
            user_id: session.user_id,
            expires_at_unix_ms: session.expires_at.timestamp_millis(),
            created_at_unix_ms: session.created_at.timestamp_millis(),
            updated_at_unix_ms: session.updated_at.timestamp_millis(),
            ip_address: session.ip_address,
            user_agent: session.user_agent,
            remember_me: session.remember_me,
            impersonated_by: session.impersonated_by,
            active_organization_id: session.active_organization_id,
            active_team_id: session.active_team_id,
        }
    }
}

impl From<pb::Session> for Session {
    fn from(session: pb::Session) -> Self {
        Session {
            id: session.id,
            token: session.token,
            user_id: session.user_id,
            expires_at: ids::from_unix_ms(session.expires_at_unix_ms),
            created_at: ids::from_unix_ms(session.created_at_unix_ms),
            updated_at: ids::from_unix_ms(session.updated_at_unix_ms),
            ip_address: session.ip_address,
            user_agent: session.user_agent,
            remember_me: session.remember_me,
            impersonated_by: session.impersonated_by,
            active_organization_id: session.active_organization_id,
            active_team_id: session.active_team_id,
        }
    }
}
