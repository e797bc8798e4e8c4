//! The `member` capability (`gatehouse.organization.v1.MemberService`, protocol reference
//! §11.7): a user's place in an organization, with their role(s): add (server side only),
//! list, the caller's own membership and role, role changes, removal, leaving, and
//! has-permission (`rules.rs`), the table (`store.rs`), list parameters (`query.rs`), and
//! identity's `user.deleted` (`events.rs`).

pub mod events;
pub mod grpc;
pub mod query;
pub mod rules;
pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::MemberAdded;
use gatehouse_proto::identity::v1 as identity_pb;

pub use rules::Members;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Member {
    pub id: String,
    pub organization_id: String,
    pub user_id: String,
    /// One role or several, comma-separated.
    pub role: String,
    pub created_at: DateTime<Utc>,
}

/// A member as member lists show them: with what they show of the member's user.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedMember {
    pub member: Member,
    pub user: Option<identity_pb::User>,
}

/// `member.added`, written with the membership.
pub fn added_event(member: &Member) -> OutboxEvent {
    OutboxEvent::new(&MemberAdded {
        organization_id: member.organization_id.clone(),
        member_id: member.id.clone(),
        user_id: member.user_id.clone(),
        role: member.role.clone(),
    })
}
