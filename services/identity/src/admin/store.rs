//! The users table as admins see it: the filtered, sorted, paged list (one sea-query statement
//! rendered per backend) and removal.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{
    Alias, Asterisk, Cond, Expr, ExprTrait, Func, LikeExpr, Order, Query, SelectStatement,
    SimpleExpr,
};
use gatehouse_kit::db::{Db, DbError};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::UserDeleted;

use crate::user::User;

/// How a column's values compare (filter values arrive as strings from a query string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Bool,
    Time,
}

/// better-auth's user field names and their columns.
pub fn column(field: &str) -> Option<(&'static str, Kind)> {
    Some(match field {
        "id" => ("id", Kind::Text),
        "name" => ("name", Kind::Text),
        "email" => ("email", Kind::Text),
        "emailVerified" => ("email_verified", Kind::Bool),
        "image" => ("image", Kind::Text),
        "createdAt" => ("created_at", Kind::Time),
        "updatedAt" => ("updated_at", Kind::Time),
        "username" => ("username", Kind::Text),
        "displayUsername" => ("display_username", Kind::Text),
        "role" => ("role", Kind::Text),
        "banned" => ("banned", Kind::Bool),
        "banReason" => ("ban_reason", Kind::Text),
        "banExpires" => ("ban_expires", Kind::Time),
        _ => return None,
    })
}

/// A value a column is compared with, already of the column's kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Text(String),
    Bool(bool),
    Time(DateTime<Utc>),
}

impl From<Scalar> for SimpleExpr {
    fn from(value: Scalar) -> Self {
        match value {
            Scalar::Text(text) => text.into(),
            Scalar::Bool(flag) => flag.into(),
            Scalar::Time(time) => time.into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    Compare(&'static str, CompareOp, Scalar),
    In(&'static str, Vec<Scalar>, bool),
    /// Text matching, ignoring case.
    Like(&'static str, String, Match),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Lte,
    Gt,
    Gte,
}

/// One page of the list, and what decides it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListQuery {
    pub filters: Vec<Filter>,
    /// A column, descending when true. `None`: oldest first.
    pub sort: Option<(&'static str, bool)>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

/// `%`, `_` and the escape itself match literally.
fn like_pattern(value: &str, how: Match) -> String {
    let escaped = value
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    match how {
        Match::Contains => format!("%{escaped}%"),
        Match::StartsWith => format!("{escaped}%"),
        Match::EndsWith => format!("%{escaped}"),
    }
}

fn condition(filters: &[Filter]) -> Cond {
    let mut all = Cond::all();
    for filter in filters {
        all = all.add(match filter {
            Filter::Compare(column, op, value) => {
                let col = Expr::col(Alias::new(*column));
                let value = SimpleExpr::from(value.clone());
                match op {
                    CompareOp::Eq => col.eq(value),
                    CompareOp::Ne => col.ne(value),
                    CompareOp::Lt => col.lt(value),
                    CompareOp::Lte => col.lte(value),
                    CompareOp::Gt => col.gt(value),
                    CompareOp::Gte => col.gte(value),
                }
            }
            Filter::In(column, values, negated) => {
                let values: Vec<SimpleExpr> = values.iter().cloned().map(Into::into).collect();
                let col = Expr::col(Alias::new(*column));
                if *negated {
                    col.is_not_in(values)
                } else {
                    col.is_in(values)
                }
            }
            Filter::Like(column, value, how) => {
                let pattern = LikeExpr::new(like_pattern(value, *how)).escape('\\');
                if matches!(*column, "email" | "username") {
                    // Stored lower-cased already: the column as it is.
                    Expr::col(Alias::new(*column)).like(pattern)
                } else {
                    Expr::expr(Func::lower(Expr::col(Alias::new(*column)))).like(pattern)
                }
            }
        });
    }
    all
}

fn user_select() -> SelectStatement {
    let mut select = Query::select();
    select.from(Alias::new("users")).columns(
        [
            "id",
            "name",
            "email",
            "email_verified",
            "image",
            "created_at",
            "updated_at",
            "username",
            "display_username",
            "role",
            "banned",
            "ban_reason",
            "ban_expires",
        ]
        .map(Alias::new),
    );
    select
}

/// How many users match: `COUNT(*)`, and no `WHERE` at all when nothing filters, which
/// SQLite answers from the b-tree's page counts instead of visiting every row.
fn count_statement(cond: Cond) -> SelectStatement {
    let mut count = Query::select();
    count
        .from(Alias::new("users"))
        .expr(Func::count(Expr::col(Asterisk)));
    if !cond.is_empty() {
        count.cond_where(cond);
    }
    count
}

/// The page of users `query` asks for, and how many users match in all.
pub async fn list(db: &Db, query: &ListQuery) -> Result<(Vec<User>, u64), DbError> {
    let cond = condition(&query.filters);
    let mut page = user_select();
    page.cond_where(cond.clone());
    match query.sort {
        Some((column, descending)) => {
            let order = if descending { Order::Desc } else { Order::Asc };
            // Names sort as people read them, the same on every backend and collation;
            // emails and usernames are stored lower-cased already.
            if matches!(column, "name" | "display_username") {
                page.order_by_expr(
                    Func::lower(Expr::col(Alias::new(column))).into(),
                    order.clone(),
                );
            }
            page.order_by(Alias::new(column), order.clone())
                .order_by(Alias::new("id"), order);
        }
        None => {
            page.order_by(Alias::new("created_at"), Order::Asc)
                .order_by(Alias::new("id"), Order::Asc);
        }
    }
    if let Some(limit) = query.limit {
        page.limit(limit);
    }
    if let Some(offset) = query.offset {
        if query.limit.is_none() {
            // SQLite takes no OFFSET without a LIMIT.
            page.limit(i64::MAX as u64);
        }
        page.offset(offset);
    }
    let users: Vec<User> = db.build(&page).fetch_all(db).await?;
    let (total,): (i64,) = db.build(&count_statement(cond)).fetch_one(db).await?;
    Ok((users, u64::try_from(total).unwrap_or(0)))
}

/// Deletes the user (their accounts go with them) and records `user.deleted`; `false` when
/// there was no such user.
pub async fn remove(db: &Db, user_id: &str) -> Result<bool, DbError> {
    let mut tx = db.begin().await?;
    // Accounts first: SQLite enforces the cascade only with foreign keys on.
    gatehouse_kit::db::query("DELETE FROM accounts WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut tx)
        .await?;
    let deleted = gatehouse_kit::db::query("DELETE FROM users WHERE id = $1")
        .bind(user_id)
        .execute(&mut tx)
        .await?;
    if deleted == 0 {
        return Ok(false);
    }
    tx.enqueue(&OutboxEvent::new(&UserDeleted {
        user_id: user_id.to_string(),
    }))
    .await?;
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfiltered_count_has_no_where_clause() {
        use gatehouse_kit::db::sea_query::SqliteQueryBuilder;
        let all = count_statement(condition(&[])).to_string(SqliteQueryBuilder);
        assert_eq!(all, r#"SELECT COUNT(*) FROM "users""#);
        let some = count_statement(condition(&[Filter::Like(
            "name",
            "a".into(),
            Match::Contains,
        )]));
        assert!(some.to_string(SqliteQueryBuilder).contains("WHERE"));
    }

    #[test]
    fn like_patterns_match_wildcards_literally() {
        assert_eq!(like_pattern("A_b%", Match::Contains), "%a\\_b\\%%");
        assert_eq!(like_pattern("x", Match::StartsWith), "x%");
        assert_eq!(like_pattern("x\\", Match::EndsWith), "%x\\\\");
    }
}
