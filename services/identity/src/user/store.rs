//! The `users` table, read side.

use gatehouse_kit::db::{Db, DbError, query};

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
