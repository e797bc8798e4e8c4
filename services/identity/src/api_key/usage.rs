//! A key's use: the plugin's checks in its order (found → enabled → not expired → permissions
//! → its owner may act → rate limit → remaining uses), each use counted once. The rate window
//! counts in the shared cache (exact across replicas, no database write); remaining uses are a
//! conditional UPDATE, since a cap must hold through a cache outage; the time of the last use
//! is written at most once a minute.

use std::collections::BTreeMap;
use std::time::Duration;

use gatehouse_kit::errors::api_key as codes;
use serde::{Deserialize, Serialize};

use super::{ApiKey, ApiKeys, hash, store};
use crate::error::IdentityError;
use crate::user::User;

/// `{"resource": ["action", …]}`: what a key may do, or what a caller requires of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Permissions(pub BTreeMap<String, Vec<String>>);

impl Permissions {
    /// Whether every action `required` names is granted here.
    pub fn grants(&self, required: &Permissions) -> bool {
        required.0.iter().all(|(resource, actions)| {
            self.0
                .get(resource)
                .is_some_and(|granted| actions.iter().all(|a| granted.contains(a)))
        })
    }
}

/// Marks a hash known to be unknown.
const UNKNOWN: &[u8] = b"1";

impl ApiKeys {
    /// Checks `key` and counts one use of it: the key (as it stands after this use) and, for
    /// a user's key, its owner. `required`: permissions the key must hold.
    pub async fn verify(
        &self,
        key: &str,
        required: Option<&Permissions>,
    ) -> Result<(ApiKey, Option<User>), IdentityError> {
        let key_hash = hash(key);
        let unknown_entry = format!("api-key-unknown:{key_hash}");
        if let Ok(Some(_)) = self.unknown.get(&unknown_entry).await {
            return Err(codes::INVALID_API_KEY.into());
        }
        let Some(mut row) = store::find_by_hash(&self.db, &key_hash).await? else {
            let _ = self
                .unknown
                .set(&unknown_entry, UNKNOWN, self.settings.unknown_key_ttl)
                .await;
            return Err(codes::INVALID_API_KEY.into());
        };
        let now = gatehouse_kit::ids::now();
        if !row.enabled {
            return Err(codes::KEY_DISABLED.into());
        }
        if row.is_expired(now) {
            // As better-auth: an expired key is gone once seen.
            store::delete(&self.db, &row.reference_id, &row.id).await?;
            return Err(codes::KEY_EXPIRED.into());
        }
        if let Some(required) = required {
            let granted: Permissions = row
                .permissions
                .as_deref()
                .and_then(|p| serde_json::from_str(p).ok())
                .unwrap_or_default();
            if row.permissions.is_none() || !granted.grants(required) {
                return Err(codes::KEY_NOT_FOUND.with_status(401).into());
            }
        }
        let user = if row.organization_owned() {
            None
        } else {
            let user = crate::user::store::get(&self.db, &row.reference_id)
                .await?
                .ok_or(codes::INVALID_REFERENCE_ID_FROM_API_KEY)?;
            if user.banned && user.ban_expires.is_none_or(|until| until > now) {
                return Err(codes::USER_BANNED.into());
            }
            Some(user)
        };
        let count = self.count_in_window(&row).await?;
        if let Some(remaining) = row.remaining {
            // A spent key stays (better-auth deletes it): its owner sees why it stopped.
            if remaining <= 0 && row.refill_amount.is_none() {
                return Err(codes::USAGE_EXCEEDED.into());
            }
            row.remaining = Some(
                store::take_use(&self.db, &row, now)
                    .await?
                    .ok_or(codes::USAGE_EXCEEDED)?,
            );
        }
        if row
            .last_request
            .is_none_or(|last| now - last >= chrono::Duration::minutes(1))
        {
            store::record_use(&self.db, &row.id, now, count).await?;
            row.last_request = Some(now);
            row.updated_at = now;
        }
        row.request_count = count;
        Ok((row, user))
    }

    /// Counts this use in the key's rate window; RATE_LIMITED (with the wait) past its
    /// maximum. The count so far (0 when the key has no rate limit).
    async fn count_in_window(&self, row: &ApiKey) -> Result<i64, IdentityError> {
        let (true, Some(window_ms), Some(max)) = (
            row.rate_limit_enabled,
            row.rate_limit_time_window,
            row.rate_limit_max,
        ) else {
            return Ok(0);
        };
        let window = Duration::from_millis(u64::try_from(window_ms.max(1)).unwrap_or(1));
        let entry = format!("api-key-window:{}", row.id);
        let counted = self
            .windows
            .run(|cache| {
                let entry = entry.clone();
                async move { cache.hit_window(&entry, window).await }
            })
            .await;
        let (count, left) = match counted {
            Ok(counted) => counted,
            Err(error) => {
                // Neither cache counts: better to let the use through than to lock every key.
                tracing::warn!(%error, "API key rate window not counted");
                return Ok(0);
            }
        };
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        if count > max {
            let wait = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
            return Err(codes::RATE_LIMITED.with_try_again_in(wait.max(1)).into());
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permissions(json: &str) -> Permissions {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn every_required_action_must_be_granted() {
        let granted = permissions(r#"{"files":["read","write"],"users":["read"]}"#);
        assert!(granted.grants(&permissions(r#"{"files":["read"]}"#)));
        assert!(granted.grants(&permissions(
            r#"{"files":["read","write"],"users":["read"]}"#
        )));
        assert!(!granted.grants(&permissions(r#"{"files":["delete"]}"#)));
        assert!(!granted.grants(&permissions(r#"{"billing":["read"]}"#)));
        assert!(granted.grants(&Permissions::default()));
    }
}
