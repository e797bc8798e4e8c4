//! The read-through cache of a session together with its user, so a warm lookup is one cache
//! read. Entries are protobuf-encoded; a revoked token holds a marker that readers' fills can
//! never overwrite. Any cache failure means "read the database".
//!
//! Whoever can read or write Redis must not get sessions out of it: an entry is keyed by the
//! SHA-256 of its token and does not contain the token, and its value carries an HMAC (with a
//! key derived from the service token) over the key, the time it was written and the value, so
//! an entry written by anyone else is ignored, and so is a genuine one put back after its TTL
//! (a copy taken before a revocation cannot bring the session back). Markers carry no MAC: a forged one can only sign someone out, which
//! deleting keys could do as well.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::cache::{Cache, CacheError};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as pb;
use hmac::{KeyInit, Mac};
use prost::Message;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::Session;

/// What the MAC key is derived for (see `ServiceToken::derive`).
pub const KEY_PURPOSE: &str = "gatehouse/session-cache/v1";
const MAC_LEN: usize = 32;
/// Markers start with this; readers never overwrite one (`set_if_absent`, `set_unless`).
const MARKER: &[u8] = b"marker:";
/// What the cache holds for a token whose session was revoked or removed.
const REVOKED: &[u8] = b"marker:revoked";
/// What the cache holds, for a while, for a token whose user just changed: a read that fetched
/// the user before the change cannot cache it again. Longer than a user lookup may take.
const EVICTED: &[u8] = b"marker:evicted";
const EVICTION_HOLD: Duration = Duration::from_secs(15);

/// What the cache knows about a token.
pub enum Cached {
    Hit(Box<(Session, identity_pb::User)>),
    Revoked,
    Miss,
}

#[derive(Clone)]
pub struct SessionCache {
    cache: Cache,
    ttl: Duration,
    mac_key: Arc<[u8; 32]>,
}

/// `session:<hex SHA-256 of the token>`.
pub fn key(token: &str) -> String {
    format!("session:{}", gatehouse_kit::ids::sha256_hex(token))
}

impl SessionCache {
    pub fn new(cache: Cache, ttl: Duration, mac_key: [u8; 32]) -> Self {
        Self {
            cache,
            ttl,
            mac_key: Arc::new(mac_key),
        }
    }

    fn mac(&self, key: &str, body: &[u8]) -> [u8; MAC_LEN] {
        let mut mac = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(self.mac_key.as_slice())
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(key.as_bytes());
        mac.update(&[0]);
        mac.update(body);
        mac.finalize().into_bytes().into()
    }

    /// `MAC ‖ sealed-at (ms, little-endian) ‖ body`.
    fn seal(&self, key: &str, body: &[u8], now_ms: i64) -> Vec<u8> {
        let mut stamped = now_ms.to_le_bytes().to_vec();
        stamped.extend_from_slice(body);
        let mut sealed = self.mac(key, &stamped).to_vec();
        sealed.extend_from_slice(&stamped);
        sealed
    }

    /// The body, if the MAC is ours for this key and the entry is younger than the cache TTL.
    fn open<'a>(&self, key: &str, sealed: &'a [u8], now_ms: i64) -> Option<&'a [u8]> {
        let (mac, stamped) = sealed.split_at_checked(MAC_LEN)?;
        if !bool::from(mac.ct_eq(&self.mac(key, stamped))) {
            metrics::counter!("session_cache_forged_total").increment(1);
            tracing::warn!("session cache entry with a wrong MAC ignored");
            return None;
        }
        let (at, body) = stamped.split_at_checked(8)?;
        let sealed_at = i64::from_le_bytes(at.try_into().ok()?);
        let age = now_ms.saturating_sub(sealed_at);
        if age > self.ttl.as_millis() as i64 + 1_000 {
            metrics::counter!("session_cache_stale_total").increment(1);
            tracing::warn!(
                age_ms = age,
                "session cache entry older than its TTL ignored"
            );
            return None;
        }
        Some(body)
    }

    pub fn inner(&self) -> &Cache {
        &self.cache
    }

    pub async fn get(&self, token: &str) -> Cached {
        let key = key(token);
        match self.cache.get(&key).await {
            Ok(Some(bytes)) if bytes == REVOKED => Cached::Revoked,
            // Evicted: read the database, and do not cache (the marker refuses the fill).
            Ok(Some(bytes)) if bytes.starts_with(MARKER) => Cached::Miss,
            Ok(Some(bytes)) => {
                let now = gatehouse_kit::ids::now().timestamp_millis();
                let Some(body) = self.open(&key, &bytes, now) else {
                    return Cached::Miss;
                };
                match pb::GetSessionResponse::decode(body) {
                    Ok(pb::GetSessionResponse {
                        session: Some(mut session),
                        user: Some(user),
                        ..
                    }) => {
                        session.token = token.to_string();
                        Cached::Hit(Box::new((session.into(), user)))
                    }
                    _ => Cached::Miss,
                }
            }
            Ok(None) => Cached::Miss,
            Err(error) => {
                tracing::debug!(%error, "session cache unavailable; reading the database");
                Cached::Miss
            }
        }
    }

    /// The cache entry for a session and how long it may live there.
    fn entry(
        &self,
        session: &Session,
        user: &identity_pb::User,
        now_ms: i64,
    ) -> (Vec<u8>, Duration) {
        let left_ms = (session.expires_at.timestamp_millis() - now_ms).max(1) as u64;
        let mut stored: pb::Session = session.clone().into();
        stored.token.clear();
        let entry = pb::GetSessionResponse {
            session: Some(stored),
            user: Some(user.clone()),
            refreshed: false,
            fresh: false,
        };
        (
            self.seal(&key(&session.token), &entry.encode_to_vec(), now_ms),
            Duration::from_millis(left_ms).min(self.ttl),
        )
    }

    /// Fills the cache after a database read, only if nothing is cached for the token.
    pub async fn fill(&self, session: &Session, user: &identity_pb::User, now_ms: i64) {
        let (bytes, ttl) = self.entry(session, user, now_ms);
        if let Err(error) = self
            .cache
            .set_if_absent(&key(&session.token), &bytes, ttl)
            .await
        {
            tracing::debug!(%error, "session not cached");
        }
    }

    /// Caches the slid session over the old copy, but never over a revocation marker written
    /// by a sign-out that raced this refresh.
    pub async fn refresh(&self, session: &Session, user: &identity_pb::User, now_ms: i64) {
        let (bytes, ttl) = self.entry(session, user, now_ms);
        let key = key(&session.token);
        if let Err(error) = self.cache.set_unless(&key, MARKER, &bytes, ttl).await {
            tracing::debug!(%error, "slid session not cached");
            let _ = self.cache.delete(&key).await;
        }
    }

    /// Drops the cached copy of a live session (its user changed): reads go to the database
    /// and the identity service, and for [`EVICTION_HOLD`] nothing caches it again, so a read
    /// that fetched the user just before the change cannot put the old copy back. `Err` when
    /// the cache cannot be reached (the event is retried; the delete is also replayed).
    pub async fn evict(&self, token: &str) -> Result<(), CacheError> {
        let key = key(token);
        if let Err(error) = self.cache.set(&key, EVICTED, EVICTION_HOLD).await {
            let _ = self.cache.delete(&key).await;
            return Err(error);
        }
        Ok(())
    }

    /// [`bury`](Self::bury), failing when the cache cannot be reached.
    pub async fn try_bury(&self, token: &str) -> Result<(), CacheError> {
        let key = key(token);
        if let Err(error) = self.cache.set(&key, REVOKED, self.ttl).await {
            let _ = self.cache.delete(&key).await;
            return Err(error);
        }
        Ok(())
    }

    /// Marks the token revoked, after its row is gone. Readers only fill the cache when the
    /// key is empty, so one that read the row just before the delete cannot put the session
    /// back. If the cache is unreachable, the delete is queued and replayed before the cache
    /// is read again.
    pub async fn bury(&self, token: &str) {
        if let Err(error) = self.try_bury(token).await {
            tracing::warn!(%error, "session cache unreachable; eviction deferred");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> SessionCache {
        let memory = Cache::from_url("memory://", Duration::from_millis(50)).unwrap();
        SessionCache::new(memory, Duration::from_secs(300), [9; 32])
    }

    #[test]
    fn entries_open_only_with_their_key_and_within_their_ttl() {
        let cache = cache();
        let now = 1_700_000_000_000;
        let sealed = cache.seal("session:a", b"entry", now);
        assert_eq!(
            cache.open("session:a", &sealed, now + 1),
            Some(&b"entry"[..])
        );
        assert_eq!(
            cache.open("session:b", &sealed, now + 1),
            None,
            "bound to its key"
        );
        assert_eq!(
            cache.open("session:a", &sealed, now + 302_000),
            None,
            "a copy put back after its TTL is not believed"
        );
        let mut tampered = sealed.clone();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert_eq!(cache.open("session:a", &tampered, now + 1), None);
        let other_key = SessionCache::new(cache.cache.clone(), Duration::from_secs(300), [8; 32]);
        assert_eq!(other_key.open("session:a", &sealed, now + 1), None);
    }
}
