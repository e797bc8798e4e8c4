//! The `endpoints` table. Every statement but the fan-out's names the organization.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, Order, Query};
use gatehouse_kit::db::{DbError, Executor, Tx, query};

use super::{Endpoint, Settings};

/// Every column, as [`Row`] reads them.
macro_rules! columns {
    () => {
        "id, organization_id, url, description, event_types, enabled, disabled_reason, \
         secret, polar_signing, previous_secret, previous_secret_expires_at, failing_since, \
         created_by_email, created_at, updated_at, created_by_name, created_by_language, \
         previous_polar_signing"
    };
}

/// `SELECT <every column> FROM endpoints <tail>`, made at compile time (kit's `query` takes
/// `&'static str`).
macro_rules! select {
    ($tail:literal) => {
        concat!("SELECT ", columns!(), " FROM endpoints ", $tail)
    };
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    organization_id: String,
    url: String,
    description: String,
    event_types: String,
    enabled: bool,
    disabled_reason: Option<String>,
    secret: String,
    polar_signing: bool,
    previous_secret: Option<String>,
    previous_secret_expires_at: Option<DateTime<Utc>>,
    failing_since: Option<DateTime<Utc>>,
    created_by_email: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    created_by_name: String,
    created_by_language: i32,
    previous_polar_signing: Option<bool>,
}

impl From<Row> for Endpoint {
    fn from(row: Row) -> Self {
        Self {
            id: row.id,
            organization_id: row.organization_id,
            url: row.url,
            description: row.description,
            event_types: row
                .event_types
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            enabled: row.enabled,
            disabled_reason: row.disabled_reason,
            secret: row.secret,
            polar_signing: row.polar_signing,
            previous_secret: row.previous_secret,
            previous_polar_signing: row.previous_polar_signing,
            previous_secret_expires_at: row.previous_secret_expires_at,
            failing_since: row.failing_since,
            created_by: super::Registrant {
                email: row.created_by_email,
                name: row.created_by_name,
                language: row.created_by_language,
            },
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

pub async fn insert(on: impl Executor, endpoint: &Endpoint) -> Result<(), DbError> {
    query(
        "INSERT INTO endpoints (id, organization_id, url, description, event_types, enabled, \
         disabled_reason, secret, polar_signing, previous_secret, previous_secret_expires_at, \
         failing_since, created_by_email, created_at, updated_at, created_by_name, \
         created_by_language) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
    )
    .bind(endpoint.id.as_str())
    .bind(endpoint.organization_id.as_str())
    .bind(endpoint.url.as_str())
    .bind(endpoint.description.as_str())
    .bind(endpoint.event_types.join(" "))
    .bind(endpoint.enabled)
    .bind(endpoint.disabled_reason.as_deref())
    .bind(endpoint.secret.as_str())
    .bind(endpoint.polar_signing)
    .bind(endpoint.previous_secret.as_deref())
    .bind(endpoint.previous_secret_expires_at)
    .bind(endpoint.failing_since)
    .bind(endpoint.created_by.email.as_str())
    .bind(endpoint.created_at)
    .bind(endpoint.updated_at)
    .bind(endpoint.created_by.name.as_str())
    .bind(endpoint.created_by.language)
    .execute(on)
    .await?;
    Ok(())
}

/// Applies an owner's checked `settings` in one statement, so nothing written beside it — a
/// rotation, a delivery's failing streak, a disabling — is written over with what was read
/// before. Enabling clears the failing streak and the reason it was disabled. Changing how it
/// signs (`polar_signing`) is a change of key: until `overlap_until` the old way signs too, as
/// after a rotation — and, as a rotation does, it takes the one previous-key slot, ending an
/// overlap still running. `None` when the organization has no such endpoint.
pub async fn update_settings(
    on: impl Executor,
    organization_id: &str,
    id: &str,
    settings: &Settings,
    overlap_until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Option<Endpoint>, DbError> {
    // Every SET sees the row as it was, so `polar_signing` below is the old value.
    let row: Option<Row> = query(concat!(
        "UPDATE endpoints SET url = COALESCE($3, url), \
         description = COALESCE($4, description), event_types = COALESCE($5, event_types), \
         failing_since = CASE WHEN $6 AND NOT enabled THEN NULL ELSE failing_since END, \
         disabled_reason = CASE WHEN $6 AND NOT enabled THEN NULL ELSE disabled_reason END, \
         enabled = COALESCE($6, enabled), \
         previous_secret = CASE WHEN $7 <> polar_signing THEN secret ELSE previous_secret END, \
         previous_polar_signing = CASE WHEN $7 <> polar_signing THEN polar_signing \
         ELSE previous_polar_signing END, \
         previous_secret_expires_at = CASE WHEN $7 <> polar_signing THEN $8 \
         ELSE previous_secret_expires_at END, \
         polar_signing = COALESCE($7, polar_signing), updated_at = $9 \
         WHERE organization_id = $1 AND id = $2 RETURNING ",
        columns!()
    ))
    .bind(organization_id)
    .bind(id)
    .bind(settings.url.as_deref())
    .bind(settings.description.as_deref())
    .bind(settings.event_types.as_ref().map(|types| types.join(" ")))
    .bind(settings.enabled)
    .bind(settings.polar_signing)
    .bind(overlap_until)
    .bind(now)
    .fetch_optional(on)
    .await?;
    Ok(row.map(Endpoint::from))
}

/// Replaces the secret with `secret` in one statement; the old one, signing the way it did,
/// keeps signing until `overlap_until`. `None` when the organization has no such endpoint.
pub async fn rotate_secret(
    on: impl Executor,
    organization_id: &str,
    id: &str,
    secret: &str,
    overlap_until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Option<Endpoint>, DbError> {
    let row: Option<Row> = query(concat!(
        "UPDATE endpoints SET previous_secret = secret, previous_polar_signing = polar_signing, \
         previous_secret_expires_at = $4, secret = $3, updated_at = $5 \
         WHERE organization_id = $1 AND id = $2 RETURNING ",
        columns!()
    ))
    .bind(organization_id)
    .bind(id)
    .bind(secret)
    .bind(overlap_until)
    .bind(now)
    .fetch_optional(on)
    .await?;
    Ok(row.map(Endpoint::from))
}

/// An attempt failed: the failing streak starts now unless it is running.
pub async fn mark_failing(on: impl Executor, id: &str, at: DateTime<Utc>) -> Result<(), DbError> {
    query("UPDATE endpoints SET failing_since = COALESCE(failing_since, $2) WHERE id = $1")
        .bind(id)
        .bind(at)
        .execute(on)
        .await?;
    Ok(())
}

/// An attempt succeeded: the failing streak, if any, is over.
pub async fn mark_healthy(on: impl Executor, id: &str) -> Result<(), DbError> {
    query("UPDATE endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL")
        .bind(id)
        .execute(on)
        .await?;
    Ok(())
}

/// Disables the endpoint if it is enabled and has been failing since `cutoff` or before;
/// `true` when this call disabled it. Only these columns change, so an owner's concurrent
/// edit (a new URL, a rotated secret) is never written over.
pub async fn disable_if_failing_since(
    on: impl Executor,
    id: &str,
    cutoff: DateTime<Utc>,
    reason: &str,
    at: DateTime<Utc>,
) -> Result<bool, DbError> {
    let changed = query(
        "UPDATE endpoints SET enabled = FALSE, disabled_reason = $3, updated_at = $4 \
         WHERE id = $1 AND enabled AND failing_since IS NOT NULL AND failing_since <= $2",
    )
    .bind(id)
    .bind(cutoff)
    .bind(reason)
    .bind(at)
    .execute(on)
    .await?;
    Ok(changed > 0)
}

pub async fn get(
    on: impl Executor,
    organization_id: &str,
    id: &str,
) -> Result<Option<Endpoint>, DbError> {
    let row: Option<Row> = query(select!("WHERE organization_id = $1 AND id = $2"))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(on)
        .await?;
    Ok(row.map(Endpoint::from))
}

/// The endpoint with `id`, whichever organization has it (deliveries only).
pub async fn by_id(on: impl Executor, id: &str) -> Result<Option<Endpoint>, DbError> {
    let row: Option<Row> = query(select!("WHERE id = $1"))
        .bind(id)
        .fetch_optional(on)
        .await?;
    Ok(row.map(Endpoint::from))
}

/// The organization's endpoints, oldest first.
pub async fn list(on: impl Executor, organization_id: &str) -> Result<Vec<Endpoint>, DbError> {
    let rows: Vec<Row> = query(select!(
        "WHERE organization_id = $1 ORDER BY created_at, id"
    ))
    .bind(organization_id)
    .fetch_all(on)
    .await?;
    Ok(rows.into_iter().map(Endpoint::from).collect())
}

/// The enabled endpoints of `organizations`, oldest first: those an event may go to (its own
/// organization's and the platform's). Never every organization's: the fan-out runs for every
/// event.
pub async fn enabled_of(tx: &mut Tx, organizations: &[&str]) -> Result<Vec<Endpoint>, DbError> {
    if organizations.is_empty() {
        return Ok(Vec::new());
    }
    let select = Query::select()
        .expr(Expr::cust(columns!()))
        .from(Alias::new("endpoints"))
        .and_where(Expr::cust("enabled"))
        .and_where(Expr::col(Alias::new("organization_id")).is_in(organizations.iter().copied()))
        .order_by(Alias::new("created_at"), Order::Asc)
        .order_by(Alias::new("id"), Order::Asc)
        .to_owned();
    let rows: Vec<Row> = tx.build(&select).fetch_all(&mut *tx).await?;
    Ok(rows.into_iter().map(Endpoint::from).collect())
}

pub async fn delete(on: impl Executor, organization_id: &str, id: &str) -> Result<bool, DbError> {
    let removed = query("DELETE FROM endpoints WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(id)
        .execute(on)
        .await?;
    Ok(removed > 0)
}

/// Removes every endpoint of `organization_id`, their deliveries and attempts with them
/// (cascade); how many endpoints.
pub async fn delete_of_organization(
    on: impl Executor,
    organization_id: &str,
) -> Result<u64, DbError> {
    query("DELETE FROM endpoints WHERE organization_id = $1")
        .bind(organization_id)
        .execute(on)
        .await
}

pub async fn count(on: impl Executor, organization_id: &str) -> Result<i64, DbError> {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM endpoints WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_one(on)
        .await?;
    Ok(n)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An endpoint with every field set plainly.
    pub(crate) fn endpoint() -> Endpoint {
        let now = gatehouse_kit::ids::now();
        Endpoint {
            id: "ep_1".into(),
            organization_id: "org_1".into(),
            url: "https://hooks.example.com/in".into(),
            description: String::new(),
            event_types: Vec::new(),
            enabled: true,
            disabled_reason: None,
            secret: super::super::secret::generate(),
            polar_signing: false,
            previous_secret: None,
            previous_polar_signing: None,
            previous_secret_expires_at: None,
            failing_since: None,
            created_by: super::super::Registrant {
                email: "owner@example.com".into(),
                name: "Olga Owner".into(),
                language: 3,
            },
            created_at: now,
            updated_at: now,
        }
    }
}
