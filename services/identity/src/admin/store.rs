//! The users table as admins see it: the filtered, sorted, paged list (one sea-query statement
//! rendered per backend), and the columns an admin's change sets.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{
    Alias, Asterisk, Cond, Expr, ExprTrait, Func, Order, Query, SelectStatement, SimpleExpr,
};
use gatehouse_kit::db::{Backend, Db, DbError};
pub use gatehouse_kit::listing::{Filter, Kind, Match};
use gatehouse_kit::listing::{condition, total_from_page};

use super::data::UserChanges;
use crate::user::User;

/// Columns kept lower-cased: text matching compares them as they are.
const STORED_LOWER: &[&str] = &["email", "username"];

/// A column an update sets, and its value.
pub type Column = (&'static str, SimpleExpr);

/// The columns of what an update-user changes.
pub(super) fn changes(changes: UserChanges) -> Vec<Column> {
    let UserChanges {
        name,
        image,
        email,
        email_verified,
        username,
        display_username,
        role,
        banned,
        ban_reason,
        ban_expires,
    } = changes;
    let mut columns: Vec<Column> = Vec::new();
    let mut set = |column: &'static str, value: Option<SimpleExpr>| {
        if let Some(value) = value {
            columns.push((column, value));
        }
    };
    set("name", name.map(Into::into));
    set("image", image.map(Into::into));
    set("email", email.map(Into::into));
    set("email_verified", email_verified.map(Into::into));
    set("username", username.map(Into::into));
    set("display_username", display_username.map(Into::into));
    set("role", role.map(Into::into));
    set("banned", banned.map(Into::into));
    set("ban_reason", ban_reason.map(Into::into));
    set("ban_expires", ban_expires.map(Into::into));
    columns
}

/// The column of a user's roles, as stored (comma-separated).
pub fn role(stored: String) -> Vec<Column> {
    vec![("role", stored.into())]
}

/// The columns of a ban.
pub fn ban(reason: String, expires: Option<DateTime<Utc>>) -> Vec<Column> {
    vec![
        ("banned", true.into()),
        ("ban_reason", reason.into()),
        ("ban_expires", expires.into()),
    ]
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

/// One page of the list, and what decides it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListQuery {
    pub filters: Vec<Filter>,
    /// A column, descending when true. `None`: oldest first.
    pub sort: Option<(&'static str, bool)>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

fn user_select() -> SelectStatement {
    let mut select = Query::select();
    // The one column list users are decoded from (by position).
    select
        .from(Alias::new("users"))
        .columns(crate::user::COLUMNS.map(Alias::new));
    select
}

/// How many users match: with nothing filtering, the count the triggers keep (migration
/// 0006), else `COUNT(*)` of the matches.
fn count_statement(cond: Cond) -> SelectStatement {
    let mut count = Query::select();
    if cond.is_empty() {
        count
            .from(Alias::new("user_count"))
            .column(Alias::new("users"));
    } else {
        count
            .from(Alias::new("users"))
            .expr(Func::count(Expr::col(Asterisk)))
            .cond_where(cond);
    }
    count
}

/// The page's statement, without its LIMIT and OFFSET.
fn page_statement(query: &ListQuery, cond: &Cond) -> SelectStatement {
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
    page
}

/// Whether nothing follows a page of `rows`: it is shorter than the limit. Not when it is
/// exactly full: asking for one row more to tell would make a sparse search walk the whole
/// table in the page's order (on SQLite, a table lookup per row) instead of stopping at the
/// page's last match.
fn last_page(query: &ListQuery, rows: usize) -> bool {
    query.limit.is_none_or(|limit| (rows as u64) < limit)
}

/// One user of a deep page and the number of all users, read together (see [`deep_page`]).
struct CountedUser {
    user: User,
    total: i64,
}

/// The user's columns by position, then the total after them.
impl<'r, R> sqlx::FromRow<'r, R> for CountedUser
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    User: sqlx::FromRow<'r, R>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        Ok(Self {
            user: <User as sqlx::FromRow<'r, R>>::from_row(row)?,
            total: row.try_get(crate::user::COLUMNS.len())?,
        })
    }
}

/// A page deep in the default order of all users, in one statement: the page starts at the
/// `(created_at, id)` of the user at `offset`, which a subquery finds by walking the
/// `users_created_at` index alone (an index-only scan on PostgreSQL, a covering index on
/// SQLite), where `OFFSET` on the page itself would read every skipped row from the table
/// (SQLite: a seek per row; PostgreSQL: a heap fetch per row). The key never leaves SQL, so
/// it compares as stored (SQLite keeps times as text). Every row carries the total that the
/// triggers keep (migration 0006). `None` when the page is empty (past the end, or a limit
/// of 0): then the total must be counted.
async fn deep_page(
    db: &Db,
    query: &ListQuery,
    offset: u64,
) -> Result<Option<(Vec<User>, u64)>, DbError> {
    let mut start = Query::select();
    start
        .from(Alias::new("users"))
        .columns([Alias::new("created_at"), Alias::new("id")])
        .order_by(Alias::new("created_at"), Order::Asc)
        .order_by(Alias::new("id"), Order::Asc)
        .limit(1)
        .offset(std::cmp::min(offset, i64::MAX.unsigned_abs()));
    let mut total = Query::select();
    total
        .from(Alias::new("user_count"))
        .column(Alias::new("users"));
    let mut page = page_statement(query, &Cond::all());
    page.expr(SimpleExpr::SubQuery(None, Box::new(total.into())))
        .and_where(
            Expr::tuple([
                Expr::col(Alias::new("created_at")),
                Expr::col(Alias::new("id")),
            ])
            .gte(SimpleExpr::SubQuery(None, Box::new(start.into()))),
        );
    let rows: Vec<CountedUser> = db
        .build_page(&page, query.limit, None)
        .fetch_all(db)
        .await?;
    let Some(total) = rows.first().map(|row| row.total) else {
        return Ok(None);
    };
    let users = rows.into_iter().map(|row| row.user).collect();
    Ok(Some((users, u64::try_from(total).unwrap_or(0))))
}

/// The shortest search the trigram indexes answer from their index; shorter ones scan.
const TRIGRAM: usize = 3;

/// On SQLite, each text search of email or name also narrows users to the candidates of the
/// FTS5 trigram table (`users_search`, migration 0005), found by id. The candidates' pattern
/// has no escape (FTS5 takes LIKE's two-argument form only), so a `%` or `_` the user typed is
/// a one-character wildcard there: a superset, which the exact LIKE of [`condition`] then
/// trims. PostgreSQL needs nothing here: its pg_trgm indexes serve the LIKE itself.
fn with_trigram_candidates(mut cond: Cond, filters: &[Filter]) -> Cond {
    for filter in filters {
        let Filter::Like(column @ ("email" | "name"), value, how) = filter else {
            continue;
        };
        let text = value.to_lowercase();
        if text.chars().count() < TRIGRAM {
            continue;
        }
        let wildcards = text.replace('%', "_");
        let pattern = match how {
            Match::Contains => format!("%{wildcards}%"),
            Match::StartsWith => format!("{wildcards}%"),
            Match::EndsWith => format!("%{wildcards}"),
        };
        let mut candidates = Query::select();
        candidates
            .column(Alias::new("id"))
            .from(Alias::new("users_search"))
            .and_where(Expr::col(Alias::new(*column)).like(pattern));
        cond = cond.add(Expr::col(Alias::new("id")).in_subquery(candidates));
    }
    cond
}

/// The page of users `query` asks for, and how many users match in all.
pub async fn list(db: &Db, query: &ListQuery) -> Result<(Vec<User>, u64), DbError> {
    let offset = query.offset.filter(|n| *n > 0);
    if let Some(offset) = offset
        && query.sort.is_none()
        && query.filters.is_empty()
        && let Some(found) = deep_page(db, query, offset).await?
    {
        return Ok(found);
    }
    let mut cond = condition(&query.filters, STORED_LOWER);
    if db.backend() == Backend::Sqlite {
        cond = with_trigram_candidates(cond, &query.filters);
    }
    let users: Vec<User> = db
        .build_page(&page_statement(query, &cond), query.limit, offset)
        .fetch_all(db)
        .await?;
    if let Some(total) = total_from_page(offset, users.len(), last_page(query, users.len())) {
        return Ok((users, total));
    }
    let (total,): (i64,) = db.build(&count_statement(cond)).fetch_one(db).await?;
    Ok((users, u64::try_from(total).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfiltered_count_reads_the_kept_count() {
        use gatehouse_kit::db::sea_query::SqliteQueryBuilder;
        let all = count_statement(condition(&[], STORED_LOWER)).to_string(SqliteQueryBuilder);
        assert_eq!(all, r#"SELECT "users" FROM "user_count""#);
        let some = count_statement(condition(
            &[Filter::Like("name", "a".into(), Match::Contains)],
            STORED_LOWER,
        ));
        assert!(some.to_string(SqliteQueryBuilder).contains("WHERE"));
    }
}
