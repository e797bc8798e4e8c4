//! Who is asking, as every capability of the service receives it.

/// Who is asking: the signed-in user and the session they asked with.
#[derive(Clone, Debug, Default)]
pub struct Caller {
    pub user_id: String,
    pub session_token: String,
    pub active_organization_id: Option<String>,
    pub active_team_id: Option<String>,
    /// The user's email (lower-cased) and whether it is verified.
    pub email: String,
    pub email_verified: bool,
}
