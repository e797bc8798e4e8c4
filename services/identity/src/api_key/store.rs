//! The `api_keys` table: keys found by their hash, their owner's list, and the writes a key's
//! use makes (an exact decrement of its remaining uses; its last use, at most once a minute).

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, Order, Query};
use gatehouse_kit::db::{Db, DbError, Tx, query};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1 as events;

/// Every column but the hash, in the order [`ApiKey`] reads them.
macro_rules! key_columns {
    () => {
        "id, config_id, name, start, reference_id, owner_kind, prefix, refill_interval, \
         refill_amount, last_refill_at, enabled, rate_limit_enabled, rate_limit_time_window, \
         rate_limit_max, request_count, remaining, last_request, expires_at, created_at, \
         updated_at, permissions, metadata"
    };
}
const COLUMNS: &str = key_columns!();

/// A stored key, without its hash.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct ApiKey {
    pub id: String,
    pub config_id: String,
    pub name: Option<String>,
    pub start: Option<String>,
    pub reference_id: String,
    /// `user` or `organization`: what `reference_id` names.
    pub owner_kind: String,
    pub prefix: Option<String>,
    /// Milliseconds.
    pub refill_interval: Option<i64>,
    pub refill_amount: Option<i64>,
    pub last_refill_at: Option<DateTime<Utc>>,
    pub enabled: bool,
    pub rate_limit_enabled: bool,
    /// Milliseconds.
    pub rate_limit_time_window: Option<i64>,
    pub rate_limit_max: Option<i64>,
    pub request_count: i64,
    pub remaining: Option<i64>,
    pub last_request: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub permissions: Option<String>,
    pub metadata: Option<String>,
}

/// [`ApiKey::owner_kind`] of an organization's key.
pub const ORGANIZATION: &str = "organization";
/// [`ApiKey::owner_kind`] of a user's key.
pub const USER: &str = "user";

impl ApiKey {
    pub fn organization_owned(&self) -> bool {
        self.owner_kind == ORGANIZATION
    }

    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }
}

/// Inserts `key` (its hash beside it) and records `api-key.created`.
pub async fn insert(db: &Db, key: &ApiKey, key_hash: &str) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    query(
        "INSERT INTO api_keys (id, config_id, name, start, reference_id, owner_kind, prefix, \
         key_hash, refill_interval, refill_amount, last_refill_at, enabled, rate_limit_enabled, \
         rate_limit_time_window, rate_limit_max, request_count, remaining, last_request, \
         expires_at, created_at, updated_at, permissions, metadata) VALUES \
         ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
         $19, $20, $21, $22, $23)",
    )
    .bind(key.id.clone())
    .bind(key.config_id.clone())
    .bind(key.name.clone())
    .bind(key.start.clone())
    .bind(key.reference_id.clone())
    .bind(key.owner_kind.clone())
    .bind(key.prefix.clone())
    .bind(key_hash)
    .bind(key.refill_interval)
    .bind(key.refill_amount)
    .bind(key.last_refill_at)
    .bind(key.enabled)
    .bind(key.rate_limit_enabled)
    .bind(key.rate_limit_time_window)
    .bind(key.rate_limit_max)
    .bind(key.request_count)
    .bind(key.remaining)
    .bind(key.last_request)
    .bind(key.expires_at)
    .bind(key.created_at)
    .bind(key.updated_at)
    .bind(key.permissions.clone())
    .bind(key.metadata.clone())
    .execute(&mut tx)
    .await?;
    tx.enqueue(&OutboxEvent::new(&events::ApiKeyCreated {
        api_key_id: key.id.clone(),
        reference_id: key.reference_id.clone(),
        name: key.name.clone(),
    }))
    .await?;
    tx.commit().await
}

/// The key whose hash is `key_hash`.
pub async fn find_by_hash(db: &Db, key_hash: &str) -> Result<Option<ApiKey>, DbError> {
    query(concat!(
        "SELECT ",
        key_columns!(),
        " FROM api_keys WHERE key_hash = $1"
    ))
    .bind(key_hash)
    .fetch_optional(db)
    .await
}

/// One of `reference_id`'s keys.
pub async fn find(db: &Db, reference_id: &str, id: &str) -> Result<Option<ApiKey>, DbError> {
    query(concat!(
        "SELECT ",
        key_columns!(),
        " FROM api_keys WHERE id = $1 AND reference_id = $2"
    ))
    .bind(id)
    .bind(reference_id)
    .fetch_optional(db)
    .await
}

/// Who owns the key `id`: its reference and kind.
pub async fn owner(db: &Db, id: &str) -> Result<Option<(String, String)>, DbError> {
    query("SELECT reference_id, owner_kind FROM api_keys WHERE id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

/// How a list is sorted: a column and its direction.
#[derive(Clone, Copy, Debug)]
pub struct Sort {
    pub column: &'static str,
    pub descending: bool,
}

/// `reference_id`'s keys, sorted (oldest first unless told), and their total count.
pub async fn list(
    db: &Db,
    reference_id: &str,
    sort: Option<Sort>,
    limit: Option<u64>,
    offset: Option<u64>,
) -> Result<(Vec<ApiKey>, u64), DbError> {
    let mut select = Query::select();
    select
        .from(Alias::new("api_keys"))
        .columns(COLUMNS.split(", ").map(|c| Alias::new(c.trim())))
        .and_where(Expr::col(Alias::new("reference_id")).eq(reference_id));
    let (column, order) = match sort {
        Some(Sort { column, descending }) => {
            (column, if descending { Order::Desc } else { Order::Asc })
        }
        None => ("created_at", Order::Asc),
    };
    select
        .order_by(Alias::new(column), order.clone())
        .order_by(Alias::new("id"), order);
    let keys: Vec<ApiKey> = db.build_page(&select, limit, offset).fetch_all(db).await?;
    let (total,): (i64,) = query("SELECT COUNT(*) FROM api_keys WHERE reference_id = $1")
        .bind(reference_id)
        .fetch_one(db)
        .await?;
    Ok((keys, u64::try_from(total).unwrap_or(0)))
}

/// What an update sets; `None` leaves a column as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    pub name: Option<String>,
    pub enabled: Option<bool>,
    pub expires_at: Option<Option<DateTime<Utc>>>,
    pub metadata: Option<Option<String>>,
    pub remaining: Option<Option<i64>>,
    pub refill_amount: Option<Option<i64>>,
    pub refill_interval: Option<Option<i64>>,
    pub rate_limit_enabled: Option<bool>,
    pub rate_limit_time_window: Option<Option<i64>>,
    pub rate_limit_max: Option<Option<i64>>,
    pub permissions: Option<Option<String>>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Applies `changes` to one of `reference_id`'s keys; the key afterwards, `None` when there is
/// no such key. better-auth leaves `updatedAt` to the key's uses.
pub async fn update(
    db: &Db,
    reference_id: &str,
    id: &str,
    changes: Changes,
) -> Result<Option<ApiKey>, DbError> {
    let mut statement = Query::update();
    statement
        .table(Alias::new("api_keys"))
        .and_where(Expr::col(Alias::new("id")).eq(id))
        .and_where(Expr::col(Alias::new("reference_id")).eq(reference_id));
    let Changes {
        name,
        enabled,
        expires_at,
        metadata,
        remaining,
        refill_amount,
        refill_interval,
        rate_limit_enabled,
        rate_limit_time_window,
        rate_limit_max,
        permissions,
    } = changes;
    let mut set = |column: &str, value: Option<gatehouse_kit::db::sea_query::SimpleExpr>| {
        if let Some(value) = value {
            statement.value(Alias::new(column), value);
        }
    };
    set("name", name.map(Into::into));
    set("enabled", enabled.map(Into::into));
    set("expires_at", expires_at.map(Into::into));
    set("metadata", metadata.map(Into::into));
    set("remaining", remaining.map(Into::into));
    set("refill_amount", refill_amount.map(Into::into));
    set("refill_interval", refill_interval.map(Into::into));
    set("rate_limit_enabled", rate_limit_enabled.map(Into::into));
    set(
        "rate_limit_time_window",
        rate_limit_time_window.map(Into::into),
    );
    set("rate_limit_max", rate_limit_max.map(Into::into));
    set("permissions", permissions.map(Into::into));
    db.build(&statement).execute(db).await?;
    find(db, reference_id, id).await
}

/// Deletes one of `reference_id`'s keys and records `api-key.revoked`; `false` when there was
/// no such key.
pub async fn delete(db: &Db, reference_id: &str, id: &str) -> Result<bool, DbError> {
    let mut tx = db.begin().await?;
    let deleted = query("DELETE FROM api_keys WHERE id = $1 AND reference_id = $2")
        .bind(id)
        .bind(reference_id)
        .execute(&mut tx)
        .await?;
    if deleted == 0 {
        return Ok(false);
    }
    revoked(&mut tx, id, reference_id).await?;
    tx.commit().await?;
    Ok(true)
}

async fn revoked(tx: &mut Tx, id: &str, reference_id: &str) -> Result<(), DbError> {
    tx.enqueue(&OutboxEvent::new(&events::ApiKeyRevoked {
        api_key_id: id.to_string(),
        reference_id: reference_id.to_string(),
    }))
    .await
}

/// Deletes every key of `reference_id` in `tx` (their owner is going), each with its
/// `api-key.revoked`.
pub async fn delete_owned(tx: &mut Tx, reference_id: &str) -> Result<(), DbError> {
    let ids: Vec<(String,)> = query("SELECT id FROM api_keys WHERE reference_id = $1")
        .bind(reference_id)
        .fetch_all(&mut *tx)
        .await?;
    query("DELETE FROM api_keys WHERE reference_id = $1")
        .bind(reference_id)
        .execute(&mut *tx)
        .await?;
    for (id,) in ids {
        revoked(tx, &id, reference_id).await?;
    }
    Ok(())
}

/// Deletes the keys that expired before `now`, each with its `api-key.revoked`.
pub async fn delete_expired(db: &Db, now: DateTime<Utc>) -> Result<u64, DbError> {
    let mut tx = db.begin().await?;
    let expired: Vec<(String, String)> = query(
        "SELECT id, reference_id FROM api_keys WHERE expires_at IS NOT NULL AND expires_at <= $1",
    )
    .bind(now)
    .fetch_all(&mut tx)
    .await?;
    for (id, reference_id) in &expired {
        query("DELETE FROM api_keys WHERE id = $1")
            .bind(id.clone())
            .execute(&mut tx)
            .await?;
        revoked(&mut tx, id, reference_id).await?;
    }
    tx.commit().await?;
    Ok(expired.len() as u64)
}

/// Takes one of a capped key's remaining uses, refilling first when its interval has passed
/// since the last refill (or its creation): one conditional UPDATE, so replicas never hand out
/// the same use twice. `Ok(None)` when nothing is left; else the uses left afterwards.
pub async fn take_use(db: &Db, key: &ApiKey, now: DateTime<Utc>) -> Result<Option<i64>, DbError> {
    if let (Some(interval), Some(amount)) = (key.refill_interval, key.refill_amount) {
        let since = key.last_refill_at.unwrap_or(key.created_at);
        if now - since > chrono::Duration::milliseconds(interval) && amount > 0 {
            // Whoever moves `last_refill_at` first refills; a racing replica falls through.
            let refilled = query(
                "UPDATE api_keys SET remaining = $1, last_refill_at = $2, updated_at = $2 \
                 WHERE id = $3 AND last_refill_at IS NOT DISTINCT FROM $4",
            )
            .bind(amount - 1)
            .bind(now)
            .bind(key.id.clone())
            .bind(key.last_refill_at)
            .execute(db)
            .await?;
            if refilled == 1 {
                return Ok(Some(amount - 1));
            }
        }
    }
    let left: Option<(Option<i64>,)> = query(
        "UPDATE api_keys SET remaining = remaining - 1, updated_at = $1 \
         WHERE id = $2 AND remaining > 0 RETURNING remaining",
    )
    .bind(now)
    .bind(key.id.clone())
    .fetch_optional(db)
    .await?;
    Ok(left.map(|(left,)| left.unwrap_or(0)))
}

/// Records a use's time and the rate window's count, once a minute per key at most: a key's
/// list shows when it was last used without a write per request.
pub async fn record_use(
    db: &Db,
    id: &str,
    now: DateTime<Utc>,
    request_count: i64,
) -> Result<(), DbError> {
    query(
        "UPDATE api_keys SET last_request = $1, request_count = $2, updated_at = $1 \
         WHERE id = $3 AND (last_request IS NULL OR last_request < $4)",
    )
    .bind(now)
    .bind(request_count)
    .bind(id)
    .bind(now - chrono::Duration::minutes(1))
    .execute(db)
    .await?;
    Ok(())
}
