//! Teams inside an organization (the plugin's teams, enabled). The team routes arrive with the
//! `team` capability; creating an organization makes its default team here.

pub mod store;

use chrono::{DateTime, Utc};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Team {
    pub id: String,
    pub name: String,
    pub organization_id: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: Option<DateTime<Utc>>,
    /// How many members it has (counted when listed; not a stored column).
    pub member_count: i64,
}
