//! The `users` table, read side.

use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, Query, SimpleExpr};
use gatehouse_kit::db::{Db, DbError, query};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;

use super::User;

/// The user columns every query selects (a macro so queries stay literal strings).
#[macro_export]
macro_rules! user_columns {
    () => {
        "users.id, users.name, users.email, users.email_verified, users.image, users.created_at, users.updated_at, \
         users.username, users.display_username, users.role, users.banned, users.ban_reason, users.ban_expires"
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

/// The user with this (normalised) username.
pub async fn find_by_username(db: &Db, username: &str) -> Result<Option<User>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        user_columns!(),
        " FROM users WHERE users.username = $1"
    );
    query(SQL).bind(username).fetch_optional(db).await
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
