//! `billing_entities`: the newest state of each entity, and the reads of it.

use chrono::Utc;
use gatehouse_kit::db::{DbError, Executor, query};

use super::Entity;

/// Files `entity` unless the row already holds a state at least as new. Returns whether it
/// changed anything.
pub async fn upsert(on: impl Executor, entity: &Entity) -> Result<bool, DbError> {
    let changed = query(
        "INSERT INTO billing_entities (kind, id, customer_id, external_id, email, organization_id, \
         reference_id, status, entity_version, event_version, event_id, data, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
         ON CONFLICT (kind, id) DO UPDATE SET customer_id = excluded.customer_id, \
         external_id = excluded.external_id, email = excluded.email, \
         organization_id = excluded.organization_id, reference_id = excluded.reference_id, \
         status = excluded.status, \
         entity_version = excluded.entity_version, event_version = excluded.event_version, \
         event_id = excluded.event_id, data = excluded.data, updated_at = excluded.updated_at \
         WHERE excluded.entity_version > billing_entities.entity_version \
         OR (excluded.entity_version = billing_entities.entity_version \
         AND excluded.event_version > billing_entities.event_version)",
    )
    .bind(entity.kind)
    .bind(entity.id.as_str())
    .bind(entity.customer_id.as_deref())
    .bind(entity.external_id.as_deref())
    .bind(entity.email.as_deref())
    .bind(entity.organization_id.as_deref())
    .bind(entity.reference_id.as_deref())
    .bind(entity.status.as_deref())
    .bind(entity.entity_version)
    .bind(entity.event_version)
    .bind(entity.event_id.as_str())
    .bind(entity.data.as_str())
    .bind(Utc::now())
    .execute(on)
    .await?;
    Ok(changed > 0)
}

/// A filed entity as read back.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Filed {
    pub kind: String,
    pub id: String,
    pub customer_id: Option<String>,
    pub status: Option<String>,
    pub event_id: String,
    pub data: String,
}

pub async fn find(on: impl Executor, kind: &str, id: &str) -> Result<Option<Filed>, DbError> {
    query(
        "SELECT kind, id, customer_id, status, event_id, data FROM billing_entities \
         WHERE kind = $1 AND id = $2",
    )
    .bind(kind)
    .bind(id)
    .fetch_optional(on)
    .await
}
