//! The teams and team_members tables.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Executor, Tx, query};

use super::Team;

pub async fn insert(tx: &mut Tx, team: &Team) -> Result<(), DbError> {
    query(
        "INSERT INTO teams (id, name, organization_id, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(team.id.as_str())
    .bind(team.name.as_str())
    .bind(team.organization_id.as_str())
    .bind(team.created_at)
    .bind(team.updated_at)
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn add_member(
    tx: &mut Tx,
    team_id: &str,
    user_id: &str,
    at: DateTime<Utc>,
) -> Result<(), DbError> {
    query("INSERT INTO team_members (id, team_id, user_id, created_at) VALUES ($1, $2, $3, $4)")
        .bind(gatehouse_kit::ids::new_id())
        .bind(team_id)
        .bind(user_id)
        .bind(at)
        .execute(tx)
        .await?;
    Ok(())
}

/// The organization's teams, oldest first.
pub async fn list(on: impl Executor, organization_id: &str) -> Result<Vec<Team>, DbError> {
    query(
        "SELECT id, name, organization_id, created_at, updated_at, \
         (SELECT COUNT(*) FROM team_members m WHERE m.team_id = teams.id) AS member_count \
         FROM teams WHERE organization_id = $1 ORDER BY created_at, id",
    )
    .bind(organization_id)
    .fetch_all(on)
    .await
}
