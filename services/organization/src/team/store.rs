//! The teams and team_members tables.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Executor, Tx, query};

use super::{Team, TeamMember};

/// A team's columns with its member count (counted, not stored).
macro_rules! columns {
    () => {
        "id, name, organization_id, created_at, updated_at, \
         (SELECT COUNT(*) FROM team_members m WHERE m.team_id = teams.id) AS member_count"
    };
}

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

/// Puts `user_id` in the team. A second place in the same team is a unique violation
/// (`team_id, user_id`).
pub async fn add_member(
    tx: &mut Tx,
    team_id: &str,
    user_id: &str,
    at: DateTime<Utc>,
) -> Result<TeamMember, DbError> {
    query(
        "INSERT INTO team_members (id, team_id, user_id, created_at) VALUES ($1, $2, $3, $4) \
         RETURNING id, team_id, user_id, created_at",
    )
    .bind(gatehouse_kit::ids::new_id())
    .bind(team_id)
    .bind(user_id)
    .bind(at)
    .fetch_one(tx)
    .await
}

/// The team with `id`, if any.
pub async fn find(on: impl Executor, id: &str) -> Result<Option<Team>, DbError> {
    const SQL: &str = concat!("SELECT ", columns!(), " FROM teams WHERE id = $1");
    query(SQL).bind(id).fetch_optional(on).await
}

/// The organization's teams, oldest first.
pub async fn list(on: impl Executor, organization_id: &str) -> Result<Vec<Team>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        columns!(),
        " FROM teams WHERE organization_id = $1 ORDER BY created_at, id"
    );
    query(SQL).bind(organization_id).fetch_all(on).await
}

/// How many teams the organization has.
pub async fn count(on: impl Executor, organization_id: &str) -> Result<i64, DbError> {
    let (count,): (i64,) = query("SELECT COUNT(*) FROM teams WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_one(on)
        .await?;
    Ok(count)
}

/// The teams `user_id` is in, in the order they joined them: in one organization, or in all
/// of them.
pub async fn list_for_user(
    on: impl Executor,
    user_id: &str,
    organization_id: Option<&str>,
) -> Result<Vec<Team>, DbError> {
    const SQL: &str = "SELECT teams.id AS id, teams.name AS name, \
         teams.organization_id AS organization_id, teams.created_at AS created_at, \
         teams.updated_at AS updated_at, \
         (SELECT COUNT(*) FROM team_members m WHERE m.team_id = teams.id) AS member_count \
         FROM teams JOIN team_members joined ON joined.team_id = teams.id \
         WHERE joined.user_id = $1 AND ($2 IS NULL OR teams.organization_id = $2) \
         ORDER BY joined.created_at, joined.id";
    query(SQL)
        .bind(user_id)
        .bind(organization_id)
        .fetch_all(on)
        .await
}

/// Renames the team (no name: only `updated_at` moves); `None` when it is gone.
pub async fn rename(
    tx: &mut Tx,
    id: &str,
    name: Option<&str>,
    at: DateTime<Utc>,
) -> Result<Option<Team>, DbError> {
    const SQL: &str = concat!(
        "UPDATE teams SET name = COALESCE($1, name), updated_at = $2 WHERE id = $3 RETURNING ",
        columns!()
    );
    query(SQL)
        .bind(name)
        .bind(at)
        .bind(id)
        .fetch_optional(tx)
        .await
}

/// Deletes the team; its memberships go with it (foreign key). `false` when it was gone.
pub async fn delete(tx: &mut Tx, id: &str) -> Result<bool, DbError> {
    Ok(query("DELETE FROM teams WHERE id = $1")
        .bind(id)
        .execute(tx)
        .await?
        > 0)
}

/// The team's members, in the order they joined.
pub async fn members(on: impl Executor, team_id: &str) -> Result<Vec<TeamMember>, DbError> {
    query(
        "SELECT id, team_id, user_id, created_at FROM team_members WHERE team_id = $1 \
         ORDER BY created_at, id",
    )
    .bind(team_id)
    .fetch_all(on)
    .await
}

/// `user_id`'s place in the team, if any.
pub async fn find_member(
    on: impl Executor,
    team_id: &str,
    user_id: &str,
) -> Result<Option<TeamMember>, DbError> {
    query(
        "SELECT id, team_id, user_id, created_at FROM team_members \
         WHERE team_id = $1 AND user_id = $2",
    )
    .bind(team_id)
    .bind(user_id)
    .fetch_optional(on)
    .await
}

/// Takes `user_id` out of the team; `false` when they were not in it.
pub async fn remove_member(tx: &mut Tx, team_id: &str, user_id: &str) -> Result<bool, DbError> {
    Ok(
        query("DELETE FROM team_members WHERE team_id = $1 AND user_id = $2")
            .bind(team_id)
            .bind(user_id)
            .execute(tx)
            .await?
            > 0,
    )
}
