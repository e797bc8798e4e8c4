//! The `api_key` capability (`gatehouse.identity.v1.ApiKeyService`): better-auth's api-key
//! plugin. A key is its prefix and 64 random letters; only its SHA-256 is stored. Checks run in
//! the plugin's order; `usage` counts a key's uses.

pub mod events;
pub mod grpc;
pub mod store;
pub mod usage;

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use chrono::{DateTime, Utc};
use gatehouse_kit::cache::{Cache, WithFallback};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{api_key as codes, base};
use serde_json::Value;
use sha2::Digest;

use crate::error::IdentityError;
pub use store::{ApiKey, Changes, Sort};

/// Letters a key's random part is drawn from (better-auth's default alphabet).
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// The random part's length; also the shortest value a session header may carry.
pub const KEY_LENGTH: usize = 64;
/// Characters of a key kept as its `start`.
const START_LENGTH: usize = 6;
/// Bounds of a name and a prefix, in characters.
const NAME_LENGTH: std::ops::RangeInclusive<usize> = 1..=32;
const PREFIX_LENGTH: std::ops::RangeInclusive<usize> = 1..=32;
const DAY_SECS: f64 = 86_400.0;

/// What a deployment decides about keys (the README documents each).
#[derive(Clone, Debug)]
pub struct Settings {
    /// A new key's rate limit unless the server sets one: `API_KEY_RATE_LIMIT_ENABLED`,
    /// `API_KEY_RATE_LIMIT_WINDOW_MS`, `API_KEY_RATE_LIMIT_MAX`.
    pub rate_limit_enabled: bool,
    pub rate_limit_window_ms: i64,
    pub rate_limit_max: i64,
    /// `API_KEY_METADATA`: owners may attach metadata.
    pub metadata: bool,
    /// Bounds of `expiresIn`, in days.
    pub min_expires_in_days: f64,
    pub max_expires_in_days: f64,
    /// How long an unknown key is remembered as unknown.
    pub unknown_key_ttl: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            rate_limit_enabled: true,
            rate_limit_window_ms: 60_000,
            rate_limit_max: 600,
            metadata: true,
            min_expires_in_days: 1.0,
            max_expires_in_days: 365.0,
            unknown_key_ttl: Duration::from_secs(10),
        }
    }
}

/// The limits only the server sets (never over HTTP).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    pub remaining: Option<i64>,
    pub refill_amount: Option<i64>,
    pub refill_interval_ms: Option<i64>,
    pub rate_limit_enabled: Option<bool>,
    pub rate_limit_time_window_ms: Option<i64>,
    pub rate_limit_max: Option<i64>,
    /// JSON: `{"resource": ["action"]}`.
    pub permissions: Option<String>,
}

/// A key to make for a user, or for an organization (`organization_id`, whose member's
/// permission the caller checked).
#[derive(Clone, Debug, Default)]
pub struct NewKey {
    pub user_id: String,
    pub organization_id: Option<String>,
    /// better-auth's configuration id, kept with the key; `default` when absent.
    pub config_id: Option<String>,
    pub name: Option<String>,
    pub expires_in_secs: Option<f64>,
    pub prefix: Option<String>,
    /// JSON, as the owner sent it.
    pub metadata: Option<String>,
    pub limits: Limits,
}

/// A change to a key: `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct KeyUpdate {
    pub name: Option<String>,
    pub enabled: Option<bool>,
    /// `Some(None)` removes the expiry.
    pub expires_in_secs: Option<Option<f64>>,
    pub metadata: Option<String>,
    pub limits: Limits,
}

#[derive(Clone)]
pub struct ApiKeys {
    db: Db,
    settings: Arc<Settings>,
    /// Rate windows: shared by every replica (Redis), this process's memory while it is down.
    windows: WithFallback,
    /// Hashes of keys just found unknown, so a flood of made-up keys reads the database once
    /// per key and TTL.
    unknown: Cache,
}

impl ApiKeys {
    pub fn new(db: Db, cache: Cache, settings: Settings) -> Self {
        Self {
            db,
            settings: Arc::new(settings),
            windows: WithFallback::new(cache),
            unknown: Cache::Memory(gatehouse_kit::cache::MemoryCache::spawn(16_384)),
        }
    }

    /// A new key: the row and the key itself (shown this once). Publishes api-key.created.
    pub async fn create(&self, new: NewKey) -> Result<(ApiKey, String), IdentityError> {
        let metadata = self.metadata(new.metadata.as_deref())?;
        check_refill(&new.limits)?;
        let expires_at = match new.expires_in_secs.filter(|secs| *secs != 0.0) {
            Some(secs) => Some(self.expiry(secs)?),
            None => None,
        };
        if let Some(prefix) = new.prefix.as_deref().filter(|p| !p.is_empty()) {
            check_prefix(prefix)?;
        }
        if let Some(name) = new.name.as_deref().filter(|n| !n.is_empty()) {
            check_name(name)?;
        }
        let prefix = new.prefix.filter(|p| !p.is_empty());
        let key = format!(
            "{}{}",
            prefix.as_deref().unwrap_or_default(),
            gatehouse_kit::ids::random_from(LETTERS, KEY_LENGTH)
        );
        let now = gatehouse_kit::ids::now();
        let limits = new.limits;
        let (reference_id, owner_kind) = match new.organization_id {
            Some(organization_id) => (organization_id, store::ORGANIZATION),
            None => (new.user_id, store::USER),
        };
        let row = ApiKey {
            id: gatehouse_kit::ids::new_id(),
            config_id: new
                .config_id
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| "default".into()),
            name: new.name,
            start: Some(key.chars().take(START_LENGTH).collect()),
            reference_id,
            owner_kind: owner_kind.into(),
            prefix,
            refill_interval: limits.refill_interval_ms,
            refill_amount: limits.refill_amount,
            last_refill_at: None,
            enabled: true,
            rate_limit_enabled: limits
                .rate_limit_enabled
                .unwrap_or(self.settings.rate_limit_enabled),
            rate_limit_time_window: limits
                .rate_limit_time_window_ms
                .or(Some(self.settings.rate_limit_window_ms)),
            rate_limit_max: limits.rate_limit_max.or(Some(self.settings.rate_limit_max)),
            request_count: 0,
            remaining: limits.remaining.or(limits.refill_amount),
            last_request: None,
            expires_at,
            created_at: now,
            updated_at: now,
            permissions: check_permissions(limits.permissions)?,
            metadata,
        };
        store::insert(&self.db, &row, &hash(&key)).await?;
        tracing::info!(api_key_id = %row.id, owner = %row.reference_id, kind = %row.owner_kind, "API key created");
        Ok((row, key))
    }

    /// One of `owner`'s keys (a user's or an organization's id).
    pub async fn get(&self, owner: &str, id: &str) -> Result<ApiKey, IdentityError> {
        store::find(&self.db, owner, id)
            .await?
            .ok_or_else(|| codes::KEY_NOT_FOUND.into())
    }

    /// Who owns the key `id`: its reference and whether that is an organization.
    pub async fn owner(&self, id: &str) -> Result<(String, bool), IdentityError> {
        let (reference_id, kind) = store::owner(&self.db, id)
            .await?
            .ok_or(codes::KEY_NOT_FOUND)?;
        Ok((reference_id, kind == store::ORGANIZATION))
    }

    /// `owner`'s keys, sorted and paged, and how many there are.
    pub async fn list(
        &self,
        owner: &str,
        sort: Option<Sort>,
        limit: Option<u64>,
        offset: Option<u64>,
    ) -> Result<(Vec<ApiKey>, u64), IdentityError> {
        Ok(store::list(&self.db, owner, sort, limit, offset).await?)
    }

    /// Changes one of `owner`'s keys, in better-auth's order of checks.
    pub async fn update(
        &self,
        owner: &str,
        id: &str,
        update: KeyUpdate,
    ) -> Result<ApiKey, IdentityError> {
        if store::find(&self.db, owner, id).await?.is_none() {
            return Err(codes::KEY_NOT_FOUND.into());
        }
        let mut changes = Changes::default();
        if let Some(name) = update.name {
            check_name(&name)?;
            changes.name = Some(name);
        }
        changes.enabled = update.enabled;
        if let Some(expires_in) = update.expires_in_secs {
            changes.expires_at = Some(match expires_in {
                Some(secs) => Some(self.expiry(secs)?),
                None => None,
            });
        }
        // Without metadata enabled, better-auth drops it silently on update.
        if self.settings.metadata
            && let Some(metadata) = update.metadata
        {
            changes.metadata = Some(metadata_value(&metadata)?);
        }
        let limits = update.limits;
        check_refill(&limits)?;
        changes.remaining = limits.remaining.map(Some);
        changes.refill_amount = limits.refill_amount.map(Some);
        changes.refill_interval = limits.refill_interval_ms.map(Some);
        changes.rate_limit_enabled = limits.rate_limit_enabled;
        changes.rate_limit_time_window = limits.rate_limit_time_window_ms.map(Some);
        changes.rate_limit_max = limits.rate_limit_max.map(Some);
        if limits.permissions.is_some() {
            changes.permissions = Some(check_permissions(limits.permissions)?);
        }
        if changes.is_empty() {
            return Err(codes::NO_VALUES_TO_UPDATE.into());
        }
        store::update(&self.db, owner, id, changes)
            .await?
            .ok_or_else(|| codes::KEY_NOT_FOUND.into())
    }

    /// Deletes one of `owner`'s keys. Publishes api-key.revoked.
    pub async fn delete(&self, owner: &str, id: &str) -> Result<(), IdentityError> {
        if !store::delete(&self.db, owner, id).await? {
            return Err(codes::KEY_NOT_FOUND.into());
        }
        tracing::info!(api_key_id = %id, owner, "API key deleted");
        Ok(())
    }

    /// Deletes every expired key; how many went.
    pub async fn delete_expired(&self) -> Result<u64, IdentityError> {
        Ok(store::delete_expired(&self.db, gatehouse_kit::ids::now()).await?)
    }

    /// The stored form of `metadata` when it may be stored: falsy values (`null`, `false`,
    /// `0`, `""`) are no metadata, as better-auth reads them.
    fn metadata(&self, metadata: Option<&str>) -> Result<Option<String>, IdentityError> {
        let Some(raw) = metadata else {
            return Ok(None);
        };
        let value: Value = serde_json::from_str(raw)
            .map_err(|_| IdentityError::from(codes::INVALID_METADATA_TYPE))?;
        if is_falsy(&value) {
            return Ok(None);
        }
        if !self.settings.metadata {
            return Err(codes::METADATA_DISABLED.into());
        }
        metadata_value(raw)
    }

    /// The expiry `secs` from now, within the configured bounds.
    fn expiry(&self, secs: f64) -> Result<DateTime<Utc>, IdentityError> {
        let days = secs / DAY_SECS;
        if !secs.is_finite() || days < self.settings.min_expires_in_days {
            return Err(codes::EXPIRES_IN_IS_TOO_SMALL.into());
        }
        if days > self.settings.max_expires_in_days {
            return Err(codes::EXPIRES_IN_IS_TOO_LARGE.into());
        }
        Ok(gatehouse_kit::ids::now() + chrono::Duration::milliseconds((secs * 1000.0) as i64))
    }
}

/// `base64url(SHA-256(key))` without padding: better-auth's stored form.
pub fn hash(key: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(key.as_bytes()))
}

fn is_falsy(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(flag) => !flag,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// Metadata as stored: an object or an array (`None` for `null`).
fn metadata_value(raw: &str) -> Result<Option<String>, IdentityError> {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Null) => Ok(None),
        Ok(value @ (Value::Object(_) | Value::Array(_))) => Ok(Some(value.to_string())),
        _ => Err(codes::INVALID_METADATA_TYPE.into()),
    }
}

fn check_name(name: &str) -> Result<(), IdentityError> {
    if !NAME_LENGTH.contains(&name.chars().count()) {
        return Err(codes::INVALID_NAME_LENGTH.into());
    }
    Ok(())
}

fn check_prefix(prefix: &str) -> Result<(), IdentityError> {
    if !gatehouse_kit::validate::is_key_prefix(prefix) {
        return Err(base::VALIDATION_ERROR
            .with_message(format!(
                "[body.prefix] {}",
                gatehouse_kit::validate::KEY_PREFIX_REFUSAL
            ))
            .into());
    }
    if !PREFIX_LENGTH.contains(&prefix.len()) {
        return Err(codes::INVALID_PREFIX_LENGTH.into());
    }
    Ok(())
}

fn check_refill(limits: &Limits) -> Result<(), IdentityError> {
    match (limits.refill_amount, limits.refill_interval_ms) {
        (None, Some(_)) => Err(codes::REFILL_AMOUNT_AND_INTERVAL_REQUIRED.into()),
        (Some(_), None) => Err(codes::REFILL_INTERVAL_AND_AMOUNT_REQUIRED.into()),
        _ => Ok(()),
    }
}

/// Permissions as stored: `{"resource": ["action", …]}` re-serialised, or refused.
fn check_permissions(permissions: Option<String>) -> Result<Option<String>, IdentityError> {
    let Some(raw) = permissions else {
        return Ok(None);
    };
    match serde_json::from_str::<Option<usage::Permissions>>(&raw) {
        Ok(Some(parsed)) => Ok(Some(
            serde_json::to_string(&parsed).unwrap_or_else(|_| raw.clone()),
        )),
        Ok(None) => Ok(None),
        Err(_) => Err(base::VALIDATION_ERROR
            .with_message("[body.permissions] Invalid input: expected record")
            .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stored_as_better_auth_hashes_them() {
        // Computed by better-auth 1.7.7 (`@better-auth/api-key` 1.7.5) for this key.
        assert_eq!(
            hash("SElOHNMEqOnjkJJpfoczaSDfpXxUXdDkcuYiBqOBhThYmPNyxroGDKJJOivTzsTE"),
            "17oS1egR3xJEdDYimZIh5IG8u8XfBTtFkYoTRtRNnVc"
        );
    }

    #[test]
    fn metadata_is_an_object_or_an_array() {
        assert_eq!(
            metadata_value(r#"{"a":1}"#).unwrap().as_deref(),
            Some(r#"{"a":1}"#)
        );
        assert_eq!(metadata_value("[1,2]").unwrap().as_deref(), Some("[1,2]"));
        assert_eq!(metadata_value("null").unwrap(), None);
        assert!(metadata_value("\"text\"").is_err());
        assert!(metadata_value("5").is_err());
    }
}
