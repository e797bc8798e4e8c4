//! The `member` capability (`gatehouse.organization.v1.MemberService`, protocol reference
//! §11.7): a user's place in an organization, with their role(s): add (server side only),
//! list, the caller's own membership and role, role changes, removal, leaving, and
//! has-permission (`rules.rs`), the table (`store.rs`), list parameters (`query.rs`), the copy
//! of members' users lists are answered from (`users.rs`), and identity's `user.updated` and
//! `user.deleted` (`events.rs`).

pub mod events;
pub mod grpc;
pub mod query;
pub mod rules;
pub mod store;
pub mod users;

use chrono::{DateTime, Utc};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::MemberAdded;

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

/// What member lists show of a member's user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberUser {
    pub id: String,
    pub name: String,
    pub email: String,
    pub image: Option<String>,
}

/// A member as member lists show them: with their user (`None`: identity has none, or, read
/// from the table, no copy yet).
#[derive(Clone, Debug, PartialEq)]
pub struct ListedMember {
    pub member: Member,
    pub user: Option<MemberUser>,
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
