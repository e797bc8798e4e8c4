//! The `users` table, read side.

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, Query, SimpleExpr};
use gatehouse_kit::db::{Db, DbError, Executor, Tx, query};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;

use super::User;

/// The user columns every literal query selects: [`super::COLUMNS`] (a macro so queries stay
/// literal strings; a test keeps the two the same).
#[macro_export]
macro_rules! user_columns {
    () => {
        "users.id, users.name, users.email, users.email_verified, users.image, users.created_at, users.updated_at, \
         users.username, users.display_username, users.role, users.banned, users.ban_reason, users.ban_expires, users.language, users.two_factor_enabled"
    };
}

pub async fn get(on: impl Executor, id: &str) -> Result<Option<User>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.id = $1"
    );
    query(SQL).bind(id).fetch_optional(on).await
}

/// The users with these ids, in no particular order; unknown ids are left out.
pub async fn get_many(db: &Db, ids: &[String]) -> Result<Vec<User>, DbError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut select = Query::select();
    select
        .from(Alias::new("users"))
        .columns(super::COLUMNS.map(Alias::new))
        .and_where(Expr::col(Alias::new("id")).is_in(ids.iter().map(String::as_str)));
    db.build(&select).fetch_all(db).await
}

/// The user with this (normalised) username.
pub async fn find_by_username(db: &Db, username: &str) -> Result<Option<User>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.username = $1"
    );
    query(SQL).bind(username).fetch_optional(db).await
}

/// The user with this (normalised) email.
pub async fn find_by_email(db: &Db, email: &str) -> Result<Option<User>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.email = $1"
    );
    query(SQL).bind(email).fetch_optional(db).await
}

/// The `updated_at` a change to the user sets, the user's row locked until the transaction
/// ends: now, or a millisecond past the stored one when now is not later (two changes in one
/// millisecond, a replica whose clock is behind). It is `user.updated`'s version, so it must
/// grow with every change. `None` when there is no such user.
pub(crate) async fn next_updated_at(
    tx: &mut Tx,
    user_id: &str,
) -> Result<Option<DateTime<Utc>>, DbError> {
    let previous: Option<(DateTime<Utc>,)> =
        query("UPDATE users SET updated_at = updated_at WHERE id = $1 RETURNING updated_at")
            .bind(user_id)
            .fetch_optional(tx)
            .await?;
    Ok(previous.map(|(previous,)| Ord::max(ids::now(), previous + TimeDelta::milliseconds(1))))
}

/// The user as the transaction sees them, and `user.updated` with that snapshot.
pub(crate) async fn announce(tx: &mut Tx, user_id: &str) -> Result<User, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.id = $1"
    );
    let user: User = query(SQL).bind(user_id).fetch_one(&mut *tx).await?;
    tx.enqueue(&super::updated_event(&user)).await?;
    Ok(user)
}

/// Moves the user from `old_email` to `new_email` (`verified`: whether the new address has
/// proved itself), records `user.updated`, writes `link` (the new address's verification) and
/// queues `notice` (the old address's mail), atomically. `None` when the user no longer has
/// `old_email`.
pub async fn change_email(
    db: &Db,
    user_id: &str,
    old_email: &str,
    new_email: &str,
    verified: bool,
    link: Option<&crate::verification::Link>,
    notice: &OutboxEvent,
) -> Result<Option<User>, DbError> {
    let mut tx = db.begin().await?;
    let Some(at) = next_updated_at(&mut tx, user_id).await? else {
        return Ok(None);
    };
    let changed = query(
        "UPDATE users SET email = $1, email_verified = $2, updated_at = $3 \
         WHERE id = $4 AND email = $5",
    )
    .bind(new_email)
    .bind(verified)
    .bind(at)
    .bind(user_id)
    .bind(old_email)
    .execute(&mut tx)
    .await?;
    if changed == 0 {
        return Ok(None);
    }
    if let Some(link) = link {
        link.write(&mut tx).await?;
    }
    tx.enqueue(notice).await?;
    let user = announce(&mut tx, user_id).await?;
    tx.commit().await?;
    Ok(Some(user))
}

/// Marks the user's address verified while it is still `email`, with `user.updated`; `None`
/// when there is no such user or their address is another now.
pub async fn verify_email(db: &Db, user_id: &str, email: &str) -> Result<Option<User>, DbError> {
    let mut tx = db.begin().await?;
    let Some(at) = next_updated_at(&mut tx, user_id).await? else {
        return Ok(None);
    };
    let changed =
        query("UPDATE users SET email_verified = $1, updated_at = $2 WHERE id = $3 AND email = $4")
            .bind(true)
            .bind(at)
            .bind(user_id)
            .bind(email)
            .execute(&mut tx)
            .await?;
    if changed == 0 {
        return Ok(None);
    }
    let user = announce(&mut tx, user_id).await?;
    tx.commit().await?;
    Ok(Some(user))
}

/// Deletes the user with their accounts, mailed links and API keys (each key's
/// `api-key.revoked` too), and records `user.deleted` (other
/// services drop what the user had there: the session service ends their sessions);
/// `false` when there was no such user.
pub async fn delete(db: &Db, user_id: &str) -> Result<bool, DbError> {
    let mut tx = db.begin().await?;
    // Dependents first: SQLite enforces the cascade only with foreign keys on.
    query("DELETE FROM accounts WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut tx)
        .await?;
    query("DELETE FROM verifications WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut tx)
        .await?;
    crate::api_key::store::delete_owned(&mut tx, user_id).await?;
    let deleted = query("DELETE FROM users WHERE id = $1")
        .bind(user_id)
        .execute(&mut tx)
        .await?;
    if deleted == 0 {
        return Ok(false);
    }
    tx.enqueue(&OutboxEvent::new(
        &gatehouse_proto::events::v1::UserDeleted {
            user_id: user_id.to_string(),
        },
    ))
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// The columns that lift a ban.
pub fn unbanned() -> Vec<(&'static str, SimpleExpr)> {
    vec![
        ("banned", false.into()),
        ("ban_reason", Option::<String>::None.into()),
        ("ban_expires", Option::<DateTime<Utc>>::None.into()),
    ]
}

/// Sets `columns` (and `updated_at`) on one user and records `user.updated` (with the user as
/// changed) and the events `also` in the same transaction; the user as stored afterwards, or
/// `None` when there is no such user.
pub async fn update(
    db: &Db,
    user_id: &str,
    columns: Vec<(&'static str, SimpleExpr)>,
    also: impl IntoIterator<Item = OutboxEvent>,
) -> Result<Option<User>, DbError> {
    let mut tx = db.begin().await?;
    let Some(at) = next_updated_at(&mut tx, user_id).await? else {
        return Ok(None);
    };
    let mut statement = Query::update();
    statement
        .table(Alias::new("users"))
        .value(Alias::new("updated_at"), at)
        .and_where(Expr::col(Alias::new("id")).eq(user_id));
    for (column, value) in columns {
        statement.value(Alias::new(column), value);
    }
    tx.build(&statement).execute(&mut tx).await?;
    let user = announce(&mut tx, user_id).await?;
    for event in also {
        tx.enqueue(&event).await?;
    }
    tx.commit().await?;
    Ok(Some(user))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_literal_column_list_is_the_one_users_are_decoded_from() {
        let literal: Vec<&str> = user_columns!()
            .split(',')
            .map(|c| c.trim().trim_start_matches("users."))
            .collect();
        assert_eq!(literal, super::super::COLUMNS);
    }
}
