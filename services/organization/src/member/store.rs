//! The members table.

use gatehouse_kit::db::{Db, DbError, Executor, Tx, query};

use super::{ListedMember, Member, MemberUser};

macro_rules! columns {
    () => {
        "id, organization_id, user_id, role, created_at"
    };
}

const COLUMNS: [&str; 5] = ["id", "organization_id", "user_id", "role", "created_at"];

/// A member joined with the copy of their user (NULLs: no copy).
#[derive(sqlx::FromRow)]
struct ListedRow {
    #[sqlx(flatten)]
    member: Member,
    name: Option<String>,
    email: Option<String>,
    image: Option<String>,
}

impl From<ListedRow> for ListedMember {
    fn from(row: ListedRow) -> Self {
        let user = match (row.name, row.email) {
            (Some(name), Some(email)) => Some(MemberUser {
                id: row.member.user_id.clone(),
                name,
                email,
                image: row.image,
            }),
            _ => None,
        };
        ListedMember {
            member: row.member,
            user,
        }
    }
}

pub async fn insert(tx: &mut Tx, member: &Member) -> Result<(), DbError> {
    query(
        "INSERT INTO members (id, organization_id, user_id, role, created_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(member.id.as_str())
    .bind(member.organization_id.as_str())
    .bind(member.user_id.as_str())
    .bind(member.role.as_str())
    .bind(member.created_at)
    .execute(tx)
    .await?;
    Ok(())
}

/// `user_id`'s membership of the organization, if any.
pub async fn find_for_user(
    on: impl Executor,
    organization_id: &str,
    user_id: &str,
) -> Result<Option<Member>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        columns!(),
        " FROM members WHERE organization_id = $1 AND user_id = $2"
    );
    query(SQL)
        .bind(organization_id)
        .bind(user_id)
        .fetch_optional(on)
        .await
}

/// The organization's members with their users' copies, oldest first, at most `limit`.
pub async fn list(
    on: impl Executor,
    organization_id: &str,
    limit: u32,
) -> Result<Vec<ListedMember>, DbError> {
    const SQL: &str = "SELECT m.id, m.organization_id, m.user_id, m.role, m.created_at, \
         u.name, u.email, u.image FROM members m LEFT JOIN member_users u ON u.user_id = m.user_id \
         WHERE m.organization_id = $1 ORDER BY m.created_at, m.id LIMIT $2";
    let rows: Vec<ListedRow> = query(SQL)
        .bind(organization_id)
        .bind(i64::from(limit))
        .fetch_all(on)
        .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

/// How many organizations `user_id` belongs to.
pub async fn count_for_user(on: impl Executor, user_id: &str) -> Result<i64, DbError> {
    let (count,): (i64,) = query("SELECT COUNT(*) FROM members WHERE user_id = $1")
        .bind(user_id)
        .fetch_one(on)
        .await?;
    Ok(count)
}

/// How many members the organization has.
pub async fn count(on: impl Executor, organization_id: &str) -> Result<i64, DbError> {
    let (count,): (i64,) = query("SELECT COUNT(*) FROM members WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_one(on)
        .await?;
    Ok(count)
}

/// The organizations `user_id` is a member of, by id (the order their rows are locked in).
pub async fn organization_ids_of(on: impl Executor, user_id: &str) -> Result<Vec<String>, DbError> {
    let rows: Vec<(String,)> =
        query("SELECT organization_id FROM members WHERE user_id = $1 ORDER BY organization_id")
            .bind(user_id)
            .fetch_all(on)
            .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Every member of the organization, oldest first.
pub async fn all_of(on: impl Executor, organization_id: &str) -> Result<Vec<Member>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        columns!(),
        " FROM members WHERE organization_id = $1 ORDER BY created_at, id"
    );
    query(SQL).bind(organization_id).fetch_all(on).await
}

/// Deletes every membership (and team membership) of a user; returns the organizations they
/// were a member of.
pub async fn delete_for_user(tx: &mut Tx, user_id: &str) -> Result<Vec<String>, DbError> {
    query("DELETE FROM team_members WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    let rows: Vec<(String,)> =
        query("DELETE FROM members WHERE user_id = $1 RETURNING organization_id")
            .bind(user_id)
            .fetch_all(tx)
            .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

pub async fn find(on: impl Executor, id: &str) -> Result<Option<Member>, DbError> {
    const SQL: &str = concat!("SELECT ", columns!(), " FROM members WHERE id = $1");
    query(SQL).bind(id).fetch_optional(on).await
}

/// Every member's role in the organization (for the owner rules: how many owners are left).
pub async fn roles(on: impl Executor, organization_id: &str) -> Result<Vec<String>, DbError> {
    let rows: Vec<(String,)> = query("SELECT role FROM members WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_all(on)
        .await?;
    Ok(rows.into_iter().map(|(role,)| role).collect())
}

pub async fn set_role(tx: &mut Tx, id: &str, role: &str) -> Result<Option<Member>, DbError> {
    const SQL: &str = concat!(
        "UPDATE members SET role = $1 WHERE id = $2 RETURNING ",
        columns!()
    );
    query(SQL).bind(role).bind(id).fetch_optional(tx).await
}

/// Deletes the membership and the member's places in the organization's teams.
pub async fn delete(tx: &mut Tx, member: &Member) -> Result<(), DbError> {
    query(
        "DELETE FROM team_members WHERE user_id = $1 \
         AND team_id IN (SELECT id FROM teams WHERE organization_id = $2)",
    )
    .bind(member.user_id.as_str())
    .bind(member.organization_id.as_str())
    .execute(&mut *tx)
    .await?;
    query("DELETE FROM members WHERE id = $1")
        .bind(member.id.as_str())
        .execute(tx)
        .await?;
    Ok(())
}

/// One page of a member list with the copies of its users, and how many members match.
pub async fn page(
    db: &Db,
    organization_id: &str,
    list: &super::query::ListQuery,
) -> Result<(Vec<ListedMember>, u64), DbError> {
    use gatehouse_kit::db::sea_query::{
        Alias, Asterisk, Expr, ExprTrait, Func, JoinType, Order, Query,
    };
    let cond = gatehouse_kit::listing::condition(&list.filters, &[])
        .add(Expr::col(Alias::new("organization_id")).eq(organization_id));
    let order = if list.descending {
        Order::Desc
    } else {
        Order::Asc
    };
    // The filters name members' columns unqualified, so they apply inside a subquery of
    // members alone; both backends flatten it into the join.
    let mut members = Query::select();
    members
        .from(Alias::new("members"))
        .columns(COLUMNS.map(Alias::new))
        .cond_where(cond.clone());
    let (m, u) = (Alias::new("m"), Alias::new("u"));
    let mut select = Query::select();
    select
        .columns(COLUMNS.map(|c| (m.clone(), Alias::new(c))))
        .columns(["name", "email", "image"].map(|c| (u.clone(), Alias::new(c))))
        .from_subquery(members, m.clone())
        .join_as(
            JoinType::LeftJoin,
            Alias::new("member_users"),
            u.clone(),
            Expr::col((u.clone(), Alias::new("user_id")))
                .equals((m.clone(), Alias::new("user_id"))),
        )
        .order_by((m.clone(), Alias::new(list.sort)), order.clone())
        .order_by((m, Alias::new("id")), order);
    // One row past the page tells whether anything follows it; when nothing does, the page
    // shows the total and needs no count. Ordered by createdAt (either way) the
    // `members_page_order` index walks the organization's members in order and stops there;
    // by another field they may all be read and sorted first.
    let mut rows: Vec<ListedRow> = db
        .build_page(&select, Some(list.limit.saturating_add(1)), list.offset)
        .fetch_all(db)
        .await?;
    let last = rows.len() as u64 <= list.limit;
    rows.truncate(usize::try_from(list.limit).unwrap_or(usize::MAX));
    let shown = gatehouse_kit::listing::total_from_page(list.offset, rows.len(), last);
    let members = rows.into_iter().map(Into::into).collect();
    if let Some(total) = shown {
        return Ok((members, total));
    }
    let mut count = Query::select();
    count
        .from(Alias::new("members"))
        .expr(Func::count(Expr::col(Asterisk)))
        .cond_where(cond);
    let (total,): (i64,) = db.build(&count).fetch_one(db).await?;
    Ok((members, u64::try_from(total).unwrap_or(0)))
}
