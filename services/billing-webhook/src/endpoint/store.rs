//! The `endpoints` table. Every statement but the fan-out's names the organization.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Executor, query};

use super::Endpoint;

/// `SELECT <every column> FROM endpoints <tail>`, made at compile time (kit's `query` takes
/// `&'static str`).
macro_rules! select {
    ($tail:literal) => {
        concat!(
            "SELECT id, organization_id, url, description, event_types, enabled, \
             disabled_reason, secret, polar_signing, previous_secret, \
             previous_secret_expires_at, failing_since, created_by_email, created_at, \
             updated_at, created_by_name, created_by_language FROM endpoints ",
            $tail
        )
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

/// Writes every field an owner or the deliveries change (not the id, organization or
/// creation).
pub async fn update(on: impl Executor, endpoint: &Endpoint) -> Result<bool, DbError> {
    let changed = query(
        "UPDATE endpoints SET url = $3, description = $4, event_types = $5, enabled = $6, \
         disabled_reason = $7, secret = $8, polar_signing = $9, previous_secret = $10, \
         previous_secret_expires_at = $11, failing_since = $12, updated_at = $13 \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(endpoint.organization_id.as_str())
    .bind(endpoint.id.as_str())
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
    .bind(endpoint.updated_at)
    .execute(on)
    .await?;
    Ok(changed > 0)
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

/// The enabled endpoints of every organization (the fan-out filters them by type and scope;
/// there are few endpoints next to events).
pub async fn enabled(on: impl Executor) -> Result<Vec<Endpoint>, DbError> {
    let rows: Vec<Row> = query(select!("WHERE enabled ORDER BY created_at, id"))
        .fetch_all(on)
        .await?;
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
