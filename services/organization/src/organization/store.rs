//! The organizations table.

use gatehouse_kit::db::{Db, DbError, Executor, Tx, query};

use super::Organization;

macro_rules! columns {
    () => {
        "id, name, slug, logo, metadata, created_at"
    };
}

pub async fn insert(tx: &mut Tx, organization: &Organization) -> Result<(), DbError> {
    query(
        "INSERT INTO organizations (id, name, slug, logo, metadata, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(organization.id.as_str())
    .bind(organization.name.as_str())
    .bind(organization.slug.as_str())
    .bind(organization.logo.clone())
    .bind(organization.metadata.clone())
    .bind(organization.created_at)
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn find(on: impl Executor, id: &str) -> Result<Option<Organization>, DbError> {
    const SQL: &str = concat!("SELECT ", columns!(), " FROM organizations WHERE id = $1");
    query(SQL).bind(id).fetch_optional(on).await
}

pub async fn find_by_slug(on: impl Executor, slug: &str) -> Result<Option<Organization>, DbError> {
    const SQL: &str = concat!("SELECT ", columns!(), " FROM organizations WHERE slug = $1");
    query(SQL).bind(slug).fetch_optional(on).await
}

/// Locks the organization's row until the transaction ends; whether there is one. Decisions
/// about an organization's members as a whole (the owner rules: is another owner left?) are
/// made after it, in the transaction that acts on them, so two made at once are taken one
/// after the other, the second seeing what the first did. On PostgreSQL it is `FOR NO KEY
/// UPDATE` (new members' and invitations' foreign keys, which only share the row, need not
/// wait for it); a SQLite transaction holds the database's write lock from its start
/// (`BEGIN IMMEDIATE`, kit's `Db::begin`), which serializes it already.
pub async fn lock(tx: &mut Tx, id: &str) -> Result<bool, DbError> {
    use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, LockType, Query};
    let mut select = Query::select();
    select
        .column(Alias::new("id"))
        .from(Alias::new("organizations"))
        .and_where(Expr::col(Alias::new("id")).eq(id))
        .lock(LockType::NoKeyUpdate);
    let found: Option<(String,)> = tx.build(&select).fetch_optional(&mut *tx).await?;
    Ok(found.is_some())
}

/// The organizations `user_id` is a member of, oldest membership first.
pub async fn list_for_user(db: &Db, user_id: &str) -> Result<Vec<Organization>, DbError> {
    const SQL: &str = "SELECT o.id, o.name, o.slug, o.logo, o.metadata, o.created_at \
         FROM organizations o JOIN members m ON m.organization_id = o.id \
         WHERE m.user_id = $1 ORDER BY m.created_at, o.id";
    query(SQL).bind(user_id).fetch_all(db).await
}

/// A change to an organization: `None` leaves a field; `Some(None)` clears logo or metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Change {
    pub name: Option<String>,
    pub slug: Option<String>,
    pub logo: Option<Option<String>>,
    pub metadata: Option<Option<String>>,
}

/// Applies `change`; `None` when the organization is gone.
pub async fn update(
    tx: &mut Tx,
    id: &str,
    change: &Change,
) -> Result<Option<Organization>, DbError> {
    // One statement whatever changes: COALESCE and CASE keep what is not being set.
    const SQL: &str = concat!(
        "UPDATE organizations SET name = COALESCE($1, name), slug = COALESCE($2, slug), \
         logo = CASE WHEN $3 THEN $4 ELSE logo END, \
         metadata = CASE WHEN $5 THEN $6 ELSE metadata END \
         WHERE id = $7 RETURNING ",
        columns!()
    );
    query(SQL)
        .bind(change.name.clone())
        .bind(change.slug.clone())
        .bind(change.logo.is_some())
        .bind(change.logo.clone().flatten())
        .bind(change.metadata.is_some())
        .bind(change.metadata.clone().flatten())
        .bind(id)
        .fetch_optional(tx)
        .await
}

/// Deletes the organization; its members, invitations and teams go with it (foreign keys).
pub async fn delete(tx: &mut Tx, id: &str) -> Result<bool, DbError> {
    let deleted = query("DELETE FROM organizations WHERE id = $1")
        .bind(id)
        .execute(tx)
        .await?;
    Ok(deleted > 0)
}
