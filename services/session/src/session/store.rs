//! The sessions table.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, Executor, Tx, query};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{SessionNewDevice, SessionRevoked};

use super::Session;

/// The columns every read selects (a macro so queries stay literal strings).
macro_rules! columns {
    () => {
        "id, token, user_id, expires_at, created_at, updated_at, ip_address, user_agent, remember_me, \
         impersonated_by, active_organization_id, active_team_id"
    };
}

/// Stores a new session; with its `device`, remembers the device for the user, announcing
/// `session.new-device` when it is new to a user who had others. One transaction.
pub async fn insert(db: &Db, session: &Session, device: Option<&str>) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    query(
        "INSERT INTO sessions (id, token, user_id, expires_at, created_at, updated_at, ip_address, user_agent, remember_me, \
         impersonated_by, active_organization_id, active_team_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(session.id.as_str())
    .bind(session.token.as_str())
    .bind(session.user_id.as_str())
    .bind(session.expires_at)
    .bind(session.created_at)
    .bind(session.updated_at)
    .bind(session.ip_address.as_str())
    .bind(session.user_agent.as_str())
    .bind(session.remember_me)
    .bind(session.impersonated_by.clone())
    .bind(session.active_organization_id.clone())
    .bind(session.active_team_id.clone())
    .execute(&mut tx)
    .await?;
    if let Some(device) = device {
        remember_device(&mut tx, session, device).await?;
    }
    tx.commit().await
}

async fn remember_device(tx: &mut Tx, session: &Session, device: &str) -> Result<(), DbError> {
    let added = query(
        "INSERT INTO known_devices (user_id, device, first_seen_at) VALUES ($1, $2, $3) \
         ON CONFLICT (user_id, device) DO NOTHING",
    )
    .bind(session.user_id.as_str())
    .bind(device)
    .bind(session.created_at)
    .execute(&mut *tx)
    .await?;
    if added == 0 {
        return Ok(());
    }
    let (known,): (i64,) = query("SELECT COUNT(*) FROM known_devices WHERE user_id = $1")
        .bind(session.user_id.as_str())
        .fetch_one(&mut *tx)
        .await?;
    // The first device of a user (their sign-up) is no news.
    if known > 1 {
        tx.enqueue(&OutboxEvent::new(&SessionNewDevice {
            session_id: session.id.clone(),
            user_id: session.user_id.clone(),
            device: device.to_string(),
            ip_address: session.ip_address.clone(),
            created_at_unix_ms: session.created_at.timestamp_millis(),
        }))
        .await?;
    }
    Ok(())
}

/// Forgets a deleted user's devices.
pub async fn forget_devices(tx: &mut Tx, user_id: &str) -> Result<(), DbError> {
    query("DELETE FROM known_devices WHERE user_id = $1")
        .bind(user_id)
        .execute(tx)
        .await?;
    Ok(())
}

pub async fn find_by_token(db: &Db, token: &str) -> Result<Option<Session>, DbError> {
    const SQL: &str = concat!("SELECT ", columns!(), " FROM sessions WHERE token = $1");
    query(SQL).bind(token).fetch_optional(db).await
}

/// The user's sessions, oldest first (better-auth's order): those that have not expired by
/// `unexpired_at`, or every row when it is `None`.
pub async fn list_for_user(
    db: &Db,
    user_id: &str,
    unexpired_at: Option<DateTime<Utc>>,
) -> Result<Vec<Session>, DbError> {
    match unexpired_at {
        Some(now) => query(concat!(
            "SELECT ",
            columns!(),
            " FROM sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY created_at, id"
        ))
        .bind(user_id)
        .bind(now)
        .fetch_all(db),
        None => query(concat!(
            "SELECT ",
            columns!(),
            " FROM sessions WHERE user_id = $1 ORDER BY created_at, id"
        ))
        .bind(user_id)
        .fetch_all(db),
    }
    .await
}

/// A new value for each of the session's active organization and team: `None` leaves one as
/// it is, `Some(None)` clears it.
#[derive(Clone, Debug, Default)]
pub struct ActiveChange {
    pub organization: Option<Option<String>>,
    pub team: Option<Option<String>>,
}

/// Applies `change` to the live session of `token`; `None` when there is none.
pub async fn set_active(
    db: &Db,
    token: &str,
    change: &ActiveChange,
    now: DateTime<Utc>,
) -> Result<Option<Session>, DbError> {
    // One statement whichever fields change: a CASE keeps a field that is not being set.
    const SQL: &str = concat!(
        "UPDATE sessions SET \
         active_organization_id = CASE WHEN $1 THEN $2 ELSE active_organization_id END, \
         active_team_id = CASE WHEN $3 THEN $4 ELSE active_team_id END, \
         updated_at = $5 WHERE token = $6 AND expires_at > $5 RETURNING ",
        columns!()
    );
    query(SQL)
        .bind(change.organization.is_some())
        .bind(change.organization.clone().flatten())
        .bind(change.team.is_some())
        .bind(change.team.clone().flatten())
        .bind(now)
        .bind(token)
        .fetch_optional(db)
        .await
}

/// Every session whose active organization is `organization_id` loses it (and its team);
/// returns their tokens.
pub async fn forget_organization(
    tx: &mut Tx,
    organization_id: &str,
) -> Result<Vec<String>, DbError> {
    let rows: Vec<(String,)> = query(
        "UPDATE sessions SET active_organization_id = NULL, active_team_id = NULL \
         WHERE active_organization_id = $1 RETURNING token",
    )
    .bind(organization_id)
    .fetch_all(tx)
    .await?;
    Ok(rows.into_iter().map(|(token,)| token).collect())
}

/// Every session whose active team is `team_id` loses it; returns their tokens.
pub async fn forget_team(tx: &mut Tx, team_id: &str) -> Result<Vec<String>, DbError> {
    let rows: Vec<(String,)> = query(
        "UPDATE sessions SET active_team_id = NULL WHERE active_team_id = $1 RETURNING token",
    )
    .bind(team_id)
    .fetch_all(tx)
    .await?;
    Ok(rows.into_iter().map(|(token,)| token).collect())
}

/// Slides the expiry; `false` when the session no longer exists (revoked meanwhile).
pub async fn extend(
    db: &Db,
    token: &str,
    expires_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<bool, DbError> {
    let updated = query("UPDATE sessions SET expires_at = $1, updated_at = $2 WHERE token = $3")
        .bind(expires_at)
        .bind(now)
        .bind(token)
        .execute(db)
        .await?;
    Ok(updated > 0)
}

/// Deletes a session (only if `owner` owns it, when given) and records `session.revoked`;
/// `false` when there was none.
pub async fn revoke(db: &Db, token: &str, owner: Option<&str>) -> Result<bool, DbError> {
    let mut tx = db.begin().await?;
    let deleted = match owner {
        None => query("DELETE FROM sessions WHERE token = $1 RETURNING id, user_id, token")
            .bind(token)
            .fetch_all(&mut tx),
        Some(owner) => query(
            "DELETE FROM sessions WHERE token = $1 AND user_id = $2 RETURNING id, user_id, token",
        )
        .bind(token)
        .bind(owner)
        .fetch_all(&mut tx),
    }
    .await?;
    record_revoked(&mut tx, &deleted).await?;
    tx.commit().await?;
    Ok(!deleted.is_empty())
}

/// Deletes every session of a user but `except` and records `session.revoked` for each;
/// returns their tokens.
pub async fn revoke_for_user(
    db: &Db,
    user_id: &str,
    except: Option<&str>,
) -> Result<Vec<String>, DbError> {
    let mut tx = db.begin().await?;
    let deleted = match except {
        // The impersonation sessions the user started as an admin end with theirs.
        None => query(
            "DELETE FROM sessions WHERE user_id = $1 OR impersonated_by = $1 RETURNING id, user_id, token",
        )
            .bind(user_id)
            .fetch_all(&mut tx),
        Some(kept) => query(
            "DELETE FROM sessions WHERE (user_id = $1 OR impersonated_by = $1) AND token <> $2 \
             RETURNING id, user_id, token",
        )
        .bind(user_id)
        .bind(kept)
        .fetch_all(&mut tx),
    }
    .await?;
    record_revoked(&mut tx, &deleted).await?;
    tx.commit().await?;
    Ok(deleted.into_iter().map(|(_, _, token)| token).collect())
}

/// `session.revoked` for each deleted `(id, user_id, token)`.
async fn record_revoked(tx: &mut Tx, deleted: &[(String, String, String)]) -> Result<(), DbError> {
    for (id, user_id, _) in deleted {
        tx.enqueue(&OutboxEvent::new(&SessionRevoked {
            session_id: id.clone(),
            user_id: user_id.clone(),
        }))
        .await?;
    }
    Ok(())
}

/// Deletes one session without an event (it expired; nobody revoked it).
pub async fn delete(db: &Db, token: &str) -> Result<(), DbError> {
    query("DELETE FROM sessions WHERE token = $1")
        .bind(token)
        .execute(db)
        .await?;
    Ok(())
}

/// Removes sessions whose expiry has passed; returns how many.
pub async fn delete_expired(db: &Db, now: DateTime<Utc>) -> Result<u64, DbError> {
    query("DELETE FROM sessions WHERE expires_at < $1")
        .bind(now)
        .execute(db)
        .await
}

/// The tokens of a user's sessions (to drop their cached copies).
pub async fn tokens_of(on: impl Executor, user_id: &str) -> Result<Vec<String>, DbError> {
    let rows: Vec<(String,)> = query("SELECT token FROM sessions WHERE user_id = $1")
        .bind(user_id)
        .fetch_all(on)
        .await?;
    Ok(rows.into_iter().map(|(token,)| token).collect())
}

/// Deletes every session of a user; returns their tokens.
pub async fn delete_for_user(tx: &mut Tx, user_id: &str) -> Result<Vec<String>, DbError> {
    let rows: Vec<(String,)> =
        query("DELETE FROM sessions WHERE user_id = $1 OR impersonated_by = $1 RETURNING token")
            .bind(user_id)
            .fetch_all(tx)
            .await?;
    Ok(rows.into_iter().map(|(token,)| token).collect())
}
