//! The `users` table, read side.

use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, Query, SimpleExpr};
use gatehouse_kit::db::{Db, DbError, query};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;

use super::User;

/// The user columns every literal query selects: [`super::COLUMNS`] (a macro so queries stay
/// literal strings; a test keeps the two the same).
#[macro_export]
macro_rules! user_columns {
    () => {
        "users.id, users.name, users.email, users.email_verified, users.image, users.created_at, users.updated_at, \
         users.username, users.display_username, users.role, users.banned, users.ban_reason, users.ban_expires, users.language"
    };
}

pub async fn get(db: &Db, id: &str) -> Result<Option<User>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.id = $1"
    );
    query(SQL).bind(id).fetch_optional(db).await
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

/// Moves the user from `old_email` to `new_email` (`verified`: whether the new address has
/// proved itself), records `user.updated` and writes `link` (the new address's verification),
/// atomically. `None` when the user no longer has `old_email`.
pub async fn change_email(
    db: &Db,
    user_id: &str,
    old_email: &str,
    new_email: &str,
    verified: bool,
    link: Option<&crate::verification::Link>,
) -> Result<Option<User>, DbError> {
    let mut tx = db.begin().await?;
    let changed = query(
        "UPDATE users SET email = $1, email_verified = $2, updated_at = $3 \
         WHERE id = $4 AND email = $5",
    )
    .bind(new_email)
    .bind(verified)
    .bind(ids::now())
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
    tx.enqueue(&OutboxEvent::new(
        &gatehouse_proto::events::v1::UserUpdated {
            user_id: user_id.to_string(),
        },
    ))
    .await?;
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.id = $1"
    );
    let user = query(SQL).bind(user_id).fetch_one(&mut tx).await?;
    tx.commit().await?;
    Ok(Some(user))
}

/// Deletes the user with their accounts and mailed links, and records `user.deleted` (other
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

/// Sets `columns` (and `updated_at`) on one user and records `event` in the same transaction;
/// the user as stored afterwards, or `None` when there is no such user.
pub async fn update(
    db: &Db,
    user_id: &str,
    columns: Vec<(&'static str, SimpleExpr)>,
    event: &OutboxEvent,
) -> Result<Option<User>, DbError> {
    let mut statement = Query::update();
    statement
        .table(Alias::new("users"))
        .value(Alias::new("updated_at"), ids::now())
        .and_where(Expr::col(Alias::new("id")).eq(user_id));
    for (column, value) in columns {
        statement.value(Alias::new(column), value);
    }
    let mut tx = db.begin().await?;
    if tx.build(&statement).execute(&mut tx).await? == 0 {
        return Ok(None);
    }
    tx.enqueue(event).await?;
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.id = $1"
    );
    let user = query(SQL).bind(user_id).fetch_one(&mut tx).await?;
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
