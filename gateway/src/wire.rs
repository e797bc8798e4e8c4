//! The JSON shapes better-auth puts on the wire (protocol §4), built from the services' protos.
//! Times are ISO-8601 with milliseconds and `Z`, which the client turns into `Date`s.

use gatehouse_kit::ids::iso;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::{Deserialize, Serialize};

pub mod billing;
pub mod organization;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: String,
    pub name: String,
    pub email: String,
    pub email_verified: bool,
    pub image: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Username plugin: the normalised username and the form the user typed.
    pub username: Option<String>,
    pub display_username: Option<String>,
    /// Admin plugin: one role or several, comma-separated.
    pub role: String,
    pub banned: bool,
    pub ban_reason: Option<String>,
    pub ban_expires: Option<String>,
    /// The platform's code of the language the user's mails are written in (ENG 3 unless
    /// chosen; RUS 0, UKR 1, SPA 4, GERMAN 6, POL 15, FRA 16, TURKEY 82).
    pub language: i32,
    /// Two-factor plugin: sign-ins ask for a second factor.
    #[serde(default)]
    pub two_factor_enabled: bool,
}

impl From<identity_pb::User> for User {
    fn from(user: identity_pb::User) -> Self {
        Self {
            id: user.id,
            name: user.name,
            email: user.email,
            email_verified: user.email_verified,
            image: user.image,
            created_at: iso(user.created_at_unix_ms),
            updated_at: iso(user.updated_at_unix_ms),
            username: user.username,
            display_username: user.display_username,
            role: user.role,
            banned: user.banned,
            ban_reason: user.ban_reason,
            ban_expires: user.ban_expires_unix_ms.map(iso),
            language: user.language,
            two_factor_enabled: user.two_factor_enabled,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: String,
    pub token: String,
    pub user_id: String,
    pub expires_at: String,
    pub created_at: String,
    pub updated_at: String,
    pub ip_address: String,
    pub user_agent: String,
    /// Admin plugin: the admin behind an impersonation session.
    pub impersonated_by: Option<String>,
    /// Organization plugin: the session's active organization and team.
    pub active_organization_id: Option<String>,
    pub active_team_id: Option<String>,
}

impl From<session_pb::Session> for Session {
    fn from(session: session_pb::Session) -> Self {
        Self {
            id: session.id,
            token: session.token,
            user_id: session.user_id,
            expires_at: iso(session.expires_at_unix_ms),
            created_at: iso(session.created_at_unix_ms),
            updated_at: iso(session.updated_at_unix_ms),
            ip_address: session.ip_address,
            user_agent: session.user_agent,
            impersonated_by: session.impersonated_by,
            active_organization_id: session.active_organization_id,
            active_team_id: session.active_team_id,
        }
    }
}

/// `GET /get-session` when signed in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SessionWithUser {
    pub session: Session,
    pub user: User,
}

/// `POST /sign-up/email`.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignUpResponse {
    pub token: Option<String>,
    pub user: User,
    /// Gatehouse's addition, present only when true: a verification link was mailed
    /// (`EMAIL_VERIFICATION_ON_SIGN_UP`), so the app can say so. better-auth's answer otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[schema(required = false)]
    pub verification_email_sent: bool,
}

/// better-auth's `{"status": true}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct StatusResponse {
    pub status: bool,
}

/// Routes that answer with a sentence only (`{"message": "Team removed successfully."}`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MessageResponse {
    pub message: &'static str,
}

/// `POST /sign-in/email` and `/sign-in/username`: `url` only when a callbackURL was given.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SignInResponse {
    pub redirect: bool,
    pub token: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub user: User,
}
