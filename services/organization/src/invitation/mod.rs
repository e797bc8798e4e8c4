//! The `invitation` capability (`gatehouse.organization.v1.InvitationService`, protocol
//! reference §11.8): invite (mailed through the mailer, its link opening the web app's
//! accept-invitation page), accept, reject, cancel, get, and the two lists. Only pending,
//! unexpired invitations can be acted on; only their recipient accepts or rejects them.

pub mod grpc;
pub mod rules;
pub mod store;
pub mod throttle;

pub use rules::Invitations;

use chrono::{DateTime, Utc};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Invitation {
    pub id: String,
    pub organization_id: String,
    /// Lower-cased.
    pub email: String,
    pub role: String,
    /// The teams the invitee joins, comma-separated.
    pub team_id: Option<String>,
    /// pending | accepted | rejected | canceled
    pub status: String,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub inviter_id: String,
}

impl Invitation {
    /// Pending and not expired by `now`: the only state anyone can act on.
    pub fn is_open(&self, now: DateTime<Utc>) -> bool {
        self.status == store::PENDING && self.expires_at > now
    }
}

/// An invitation with what its recipient sees of where it leads.
#[derive(Clone, Debug, PartialEq)]
pub struct Details {
    pub invitation: Invitation,
    pub organization_name: String,
    pub organization_slug: String,
    pub inviter_email: String,
}
