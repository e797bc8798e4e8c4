//! The `team` capability (`gatehouse.organization.v1.TeamService`, protocol reference §11.9):
//! teams inside an organization (better-auth's teams, enabled) and who is in them — create,
//! rename, remove, list, the session's active team, a user's teams, and team membership
//! (`rules.rs`), over the teams and team_members tables (`store.rs`). Creating an organization
//! makes its default team here.

pub mod grpc;
pub mod rules;
pub mod store;

use chrono::{DateTime, Utc};

pub use rules::Teams;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Team {
    pub id: String,
    pub name: String,
    pub organization_id: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: Option<DateTime<Utc>>,
    /// How many members it has (counted when read; not a stored column).
    pub member_count: i64,
}

/// A user's place in a team.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct TeamMember {
    pub id: String,
    pub team_id: String,
    pub user_id: String,
    pub created_at: DateTime<Utc>,
}
