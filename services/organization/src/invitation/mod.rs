//! The `invitation` capability (`gatehouse.organization.v1.InvitationService`, protocol
//! reference §11.8): invite (mailed through the mailer, its link opening the web app's
//! accept-invitation page), accept, reject, cancel, get, and the two lists. Only pending,
//! unexpired invitations can be acted on; only their recipient accepts or rejects them, and
//! (`INVITATION_REQUIRE_EMAIL_VERIFICATION`, on by default) only once their address is
//! verified, or proves its mailbox with the random token of the invitation's mailed link: the
//! link is `<page>/<id>?token=<token>`, only the token's SHA-256 is stored (like identity's
//! mailed links), and using it has identity mark the address verified.

pub mod grpc;
pub mod rules;
pub mod store;
pub mod throttle;

pub use rules::Invitations;

use chrono::{DateTime, Utc};
use gatehouse_kit::ids;

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

/// A new token for an invitation's mailed link, and its hash (what is stored).
pub(crate) fn new_link_token() -> (String, String) {
    let token = ids::random_alphanumeric(32);
    let hash = token_hash(&token);
    (token, hash)
}

fn token_hash(token: &str) -> String {
    ids::sha256_hex(token)
}

/// How the caller showed that an invitation is theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// Their address is the invitation's (and verified, when that is required).
    Address,
    /// Their unverified address is the invitation's, and the mailed link's token proved its
    /// mailbox just now.
    MailedLink,
}

/// An accepted invitation and the new membership; `email_verified`: the mailed link's token
/// proved the caller's address, which identity now has verified.
#[derive(Clone, Debug, PartialEq)]
pub struct Accepted {
    pub invitation: Invitation,
    pub member: crate::member::Member,
    pub email_verified: bool,
}

/// A rejected invitation; `email_verified` as on [`Accepted`].
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    pub invitation: Invitation,
    pub email_verified: bool,
}

/// An invitation with what its recipient sees of where it leads.
#[derive(Clone, Debug, PartialEq)]
pub struct Details {
    pub invitation: Invitation,
    pub organization_name: String,
    pub organization_slug: String,
    pub inviter_email: String,
}
