//! The caller as the organization service knows them, and the organization a request names.

use gatehouse_proto::organization::v1 as pb;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::extract::Session;

/// Who is asking, as the organization service needs it.
pub fn caller(session: &Session) -> Option<pb::Caller> {
    Some(pb::Caller {
        user_id: session.user.id.clone(),
        session_token: session.session.token.clone(),
        active_organization_id: session.session.active_organization_id.clone(),
        active_team_id: session.session.active_team_id.clone(),
        email: session.user.email.clone(),
        email_verified: session.user.email_verified,
    })
}

/// The organization a request acts on, for routes with no other input.
#[derive(Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct OrganizationInput {
    /// The organization; the session's active one when absent.
    pub organization_id: Option<String>,
}
