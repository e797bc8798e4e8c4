//! The invitations table.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Executor, Tx, query};

use super::Invitation;

macro_rules! columns {
    () => {
        "id, organization_id, email, role, team_id, status, expires_at, created_at, inviter_id"
    };
}

pub const PENDING: &str = "pending";

/// A new invitation, with the hash of its mailed link's token.
pub async fn insert(tx: &mut Tx, invitation: &Invitation, token_hash: &str) -> Result<(), DbError> {
    query(concat!(
        "INSERT INTO invitations (",
        columns!(),
        ", token_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    ))
    .bind(invitation.id.as_str())
    .bind(invitation.organization_id.as_str())
    .bind(invitation.email.as_str())
    .bind(invitation.role.as_str())
    .bind(invitation.team_id.clone())
    .bind(invitation.status.as_str())
    .bind(invitation.expires_at)
    .bind(invitation.created_at)
    .bind(invitation.inviter_id.as_str())
    .bind(token_hash)
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn find(on: impl Executor, id: &str) -> Result<Option<Invitation>, DbError> {
    const SQL: &str = concat!("SELECT ", columns!(), " FROM invitations WHERE id = $1");
    query(SQL).bind(id).fetch_optional(on).await
}

/// Every invitation of the organization, whatever its status, oldest first.
pub async fn list(on: impl Executor, organization_id: &str) -> Result<Vec<Invitation>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        columns!(),
        " FROM invitations WHERE organization_id = $1 ORDER BY created_at, id"
    );
    query(SQL).bind(organization_id).fetch_all(on).await
}

/// The pending invitation of `email` to the organization that has not expired by `now`.
pub async fn find_pending(
    on: impl Executor,
    organization_id: &str,
    email: &str,
    now: DateTime<Utc>,
) -> Result<Option<Invitation>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        columns!(),
        " FROM invitations WHERE organization_id = $1 AND email = $2 AND status = 'pending' \
         AND expires_at > $3 ORDER BY created_at DESC, id LIMIT 1"
    );
    query(SQL)
        .bind(organization_id)
        .bind(email)
        .bind(now)
        .fetch_optional(on)
        .await
}

/// Pending, unexpired invitations of the organization.
pub async fn count_pending(
    on: impl Executor,
    organization_id: &str,
    now: DateTime<Utc>,
) -> Result<i64, DbError> {
    let (count,): (i64,) = query(
        "SELECT COUNT(*) FROM invitations WHERE organization_id = $1 AND status = 'pending' \
         AND expires_at > $2",
    )
    .bind(organization_id)
    .bind(now)
    .fetch_one(on)
    .await?;
    Ok(count)
}

/// Every pending, unexpired invitation addressed to `email`, oldest first.
pub async fn pending_for_email(
    on: impl Executor,
    email: &str,
    now: DateTime<Utc>,
) -> Result<Vec<Invitation>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        columns!(),
        " FROM invitations WHERE email = $1 AND status = 'pending' AND expires_at > $2 \
         ORDER BY created_at, id"
    );
    query(SQL).bind(email).bind(now).fetch_all(on).await
}

/// Moves a pending, unexpired invitation to `status`; `None` when it is not pending any more
/// (another request got there first) or has expired.
pub async fn settle(
    tx: &mut Tx,
    id: &str,
    status: &str,
    now: DateTime<Utc>,
) -> Result<Option<Invitation>, DbError> {
    const SQL: &str = concat!(
        "UPDATE invitations SET status = $1 WHERE id = $2 AND status = 'pending' \
         AND expires_at > $3 RETURNING ",
        columns!()
    );
    query(SQL)
        .bind(status)
        .bind(id)
        .bind(now)
        .fetch_optional(tx)
        .await
}

/// A re-sent invitation's new expiry, and the hash of the new mail's token (the earlier
/// mail's link no longer proves anything).
pub async fn extend(
    tx: &mut Tx,
    id: &str,
    expires_at: DateTime<Utc>,
    token_hash: &str,
) -> Result<Option<Invitation>, DbError> {
    const SQL: &str = concat!(
        "UPDATE invitations SET expires_at = $1, token_hash = $2 WHERE id = $3 RETURNING ",
        columns!()
    );
    query(SQL)
        .bind(expires_at)
        .bind(token_hash)
        .bind(id)
        .fetch_optional(tx)
        .await
}

/// Whether `token` is the one the invitation's latest mail carried.
pub async fn link_token_matches(on: impl Executor, id: &str, token: &str) -> Result<bool, DbError> {
    let found: Option<(i32,)> =
        query("SELECT 1 FROM invitations WHERE id = $1 AND token_hash = $2")
            .bind(id)
            .bind(super::token_hash(token))
            .fetch_optional(on)
            .await?;
    Ok(found.is_some())
}

/// Pending invitations of the organization stop naming a removed team (their `team_id` is a
/// comma-separated list: rewritten here rather than matched in SQL).
pub async fn forget_team(tx: &mut Tx, organization_id: &str, team_id: &str) -> Result<(), DbError> {
    let rows: Vec<(String, String)> = query(
        "SELECT id, team_id FROM invitations WHERE organization_id = $1 \
         AND status = 'pending' AND team_id IS NOT NULL",
    )
    .bind(organization_id)
    .fetch_all(&mut *tx)
    .await?;
    for (id, teams) in rows {
        let kept: Vec<&str> = teams.split(',').filter(|t| *t != team_id).collect();
        if kept.len() == teams.split(',').count() {
            continue;
        }
        let kept = (!kept.is_empty()).then(|| kept.join(","));
        query("UPDATE invitations SET team_id = $1 WHERE id = $2")
            .bind(kept)
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}
