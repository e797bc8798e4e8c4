//! The read-through cache of a session together with its user, so a warm lookup is one cache
//! read. Entries are protobuf-encoded; a revoked token holds a marker that readers' fills can
//! never overwrite. Any cache failure means "read the database".

use std::time::Duration;

use gatehouse_kit::cache::{Cache, CacheError};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as pb;
use prost::Message;

use super::Session;

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
}

fn key(token: &str) -> String {
    format!("session:{token}")
}

impl SessionCache {
    pub fn new(cache: Cache, ttl: Duration) -> Self {
        Self { cache, ttl }
    }

    pub fn inner(&self) -> &Cache {
        &self.cache
    }

    pub async fn get(&self, token: &str) -> Cached {
        match self.cache.get(&key(token)).await {
            Ok(Some(bytes)) if bytes == REVOKED => Cached::Revoked,
            // Evicted: read the database, and do not cache (the marker refuses the fill).
            Ok(Some(bytes)) if bytes.starts_with(MARKER) => Cached::Miss,
            Ok(Some(bytes)) => match pb::GetSessionResponse::decode(bytes.as_slice()) {
                Ok(pb::GetSessionResponse {
                    session: Some(session),
                    user: Some(user),
                    ..
                }) if session.token == token => Cached::Hit(Box::new((session.into(), user))),
                _ => Cached::Miss,
            },
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
        let entry = pb::GetSessionResponse {
            session: Some(session.clone().into()),
            user: Some(user.clone()),
            refreshed: false,
            fresh: false,
        };
        (
            entry.encode_to_vec(),
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
