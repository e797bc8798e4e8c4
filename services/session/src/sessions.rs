//! Session rules: creation, lookup through the read-through cache with sliding refresh, and
//! revocation. The cache holds the session together with its user, so a warm lookup is one
//! cache read; any cache failure falls back to the database and the identity service.

use std::time::Duration;

use chrono::TimeDelta;
use gatehouse_kit::cache::Cache;
use gatehouse_kit::telemetry::TracedChannel;
use gatehouse_kit::{ErrorCode, ids};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::identity::v1::identity_service_client::IdentityServiceClient;
use gatehouse_proto::session::v1 as pb;
use prost::Message;

use crate::config::Lifetimes;
use crate::store::{Session, SessionStore};

const TOKEN_LENGTH: usize = 32;
/// What the cache holds for a token whose session was revoked or removed.
const REVOKED: &[u8] = b"revoked";

/// What the cache knows about a token.
enum Cached {
    Hit(Box<(pb::Session, identity_pb::User)>),
    Revoked,
    Miss,
}

/// A session found for a token.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub session: pb::Session,
    pub user: identity_pb::User,
    pub refreshed: bool,
    pub fresh: bool,
}

pub struct NewSession {
    pub user_id: String,
    pub ip_address: String,
    pub user_agent: String,
    pub remember_me: bool,
}

#[derive(Clone)]
pub struct Sessions {
    store: SessionStore,
    cache: Cache,
    identity: IdentityServiceClient<TracedChannel>,
    lifetimes: Lifetimes,
    cache_ttl: Duration,
}

fn cache_key(token: &str) -> String {
    format!("session:{token}")
}

fn delta(duration: Duration) -> TimeDelta {
    TimeDelta::from_std(duration).unwrap_or(TimeDelta::MAX)
}

pub fn to_proto(session: Session) -> pb::Session {
    pb::Session {
        id: session.id,
        token: session.token,
        user_id: session.user_id,
        expires_at_unix_ms: session.expires_at.timestamp_millis(),
        created_at_unix_ms: session.created_at.timestamp_millis(),
        updated_at_unix_ms: session.updated_at.timestamp_millis(),
        ip_address: session.ip_address,
        user_agent: session.user_agent,
        remember_me: session.remember_me,
    }
}

fn internal(error: impl std::fmt::Display) -> ErrorCode {
    tracing::error!(%error, "session storage failure");
    ErrorCode::InternalServerError
}

impl Sessions {
    pub fn new(
        store: SessionStore,
        cache: Cache,
        identity: IdentityServiceClient<TracedChannel>,
        lifetimes: Lifetimes,
        cache_ttl: Duration,
    ) -> Self {
        Self {
            store,
            cache,
            identity,
            lifetimes,
            cache_ttl,
        }
    }

    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    pub async fn create(&self, new: NewSession) -> Result<pb::Session, ErrorCode> {
        let now = ids::now();
        let lifetime = if new.remember_me {
            self.lifetimes.expires_in
        } else {
            self.lifetimes.dont_remember_expires_in
        };
        let session = Session {
            id: ids::new_id(),
            token: ids::random_alphanumeric(TOKEN_LENGTH),
            user_id: new.user_id,
            expires_at: now + delta(lifetime),
            created_at: now,
            updated_at: now,
            ip_address: new.ip_address,
            user_agent: new.user_agent,
            remember_me: new.remember_me,
        };
        self.store.insert(&session).await.map_err(|error| {
            tracing::error!(%error, "creating a session failed");
            ErrorCode::FailedToCreateSession
        })?;
        Ok(to_proto(session))
    }

    /// The live session for `token`, slid forward when due (unless `disable_refresh` or the
    /// session is a "don't remember me" one). `None` for unknown or expired tokens.
    pub async fn get(
        &self,
        token: &str,
        disable_refresh: bool,
    ) -> Result<Option<Resolved>, ErrorCode> {
        if token.len() != TOKEN_LENGTH || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(None);
        }
        let now = ids::now();
        let now_ms = now.timestamp_millis();
        let (mut session, user) = match self.cached(token).await {
            Cached::Hit(hit) => *hit,
            Cached::Revoked => return Ok(None),
            Cached::Miss => match self.load(token, now).await? {
                Some(loaded) => loaded,
                None => return Ok(None),
            },
        };
        if session.expires_at_unix_ms <= now_ms {
            self.forget(token).await?;
            return Ok(None);
        }
        let expires_in_ms = self.lifetimes.expires_in.as_millis() as i64;
        let update_age_ms = self.lifetimes.update_age.as_millis() as i64;
        let due = session.expires_at_unix_ms - expires_in_ms + update_age_ms <= now_ms;
        let mut refreshed = false;
        if due && session.remember_me && !disable_refresh {
            let expires_at = now + delta(self.lifetimes.expires_in);
            if !self
                .store
                .extend(token, expires_at, now)
                .await
                .map_err(internal)?
            {
                self.bury(token).await;
                return Ok(None);
            }
            session.expires_at_unix_ms = expires_at.timestamp_millis();
            session.updated_at_unix_ms = now_ms;
            refreshed = true;
            self.remember_refreshed(&session, &user, now_ms).await;
        }
        let fresh_age_ms = self.lifetimes.fresh_age.as_millis() as i64;
        let fresh = fresh_age_ms == 0 || now_ms - session.created_at_unix_ms < fresh_age_ms;
        Ok(Some(Resolved {
            session,
            user,
            refreshed,
            fresh,
        }))
    }

    /// Deletes the session; unknown tokens are fine (sign-out is idempotent).
    pub async fn revoke(&self, token: &str) -> Result<(), ErrorCode> {
        self.store.revoke(token).await.map_err(internal)?;
        self.bury(token).await;
        Ok(())
    }

    /// Marks the token revoked in the cache, after the row is gone. Readers only fill the cache
    /// when the key is empty, so one that read the row just before the delete cannot put the
    /// session back. If the cache is unreachable, the delete is queued and replayed before the
    /// cache is read again.
    async fn bury(&self, token: &str) {
        let key = cache_key(token);
        if self.cache.set(&key, REVOKED, self.cache_ttl).await.is_err()
            && let Err(error) = self.cache.delete(&key).await
        {
            tracing::warn!(%error, "session cache unreachable; eviction deferred");
        }
    }

    async fn cached(&self, token: &str) -> Cached {
        match self.cache.get(&cache_key(token)).await {
            Ok(Some(bytes)) if bytes == REVOKED => Cached::Revoked,
            Ok(Some(bytes)) => match pb::GetSessionResponse::decode(bytes.as_slice()) {
                Ok(pb::GetSessionResponse {
                    session: Some(session),
                    user: Some(user),
                    ..
                }) if session.token == token => Cached::Hit(Box::new((session, user))),
                _ => Cached::Miss,
            },
            Ok(None) => Cached::Miss,
            Err(error) => {
                tracing::debug!(%error, "session cache unavailable; reading the database");
                Cached::Miss
            }
        }
    }

    async fn load(
        &self,
        token: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<(pb::Session, identity_pb::User)>, ErrorCode> {
        let Some(row) = self.store.find_by_token(token).await.map_err(internal)? else {
            return Ok(None);
        };
        if row.expires_at <= now {
            self.forget(token).await?;
            return Ok(None);
        }
        let mut identity = self.identity.clone();
        let user = match identity
            .get_user(identity_pb::GetUserRequest {
                id: row.user_id.clone(),
            })
            .await
        {
            Ok(response) => response.into_inner().user,
            Err(status) => match ErrorCode::from_status(&status) {
                ErrorCode::UserNotFound => None,
                other => {
                    tracing::warn!(%status, "identity service lookup failed");
                    return Err(other);
                }
            },
        };
        let Some(user) = user else {
            // The user is gone: the session is an orphan.
            self.forget(token).await?;
            return Ok(None);
        };
        let session = to_proto(row);
        self.remember(&session, &user, now.timestamp_millis()).await;
        Ok(Some((session, user)))
    }

    /// The cache entry for a session and how long it may live there.
    fn entry(
        &self,
        session: &pb::Session,
        user: &identity_pb::User,
        now_ms: i64,
    ) -> (Vec<u8>, Duration) {
        let left = Duration::from_millis((session.expires_at_unix_ms - now_ms).max(1) as u64);
        let entry = pb::GetSessionResponse {
            session: Some(session.clone()),
            user: Some(user.clone()),
            refreshed: false,
            fresh: false,
        };
        (entry.encode_to_vec(), left.min(self.cache_ttl))
    }

    /// Fills the cache after a database read, only if nothing is cached for the token.
    async fn remember(&self, session: &pb::Session, user: &identity_pb::User, now_ms: i64) {
        let (bytes, ttl) = self.entry(session, user, now_ms);
        if let Err(error) = self
            .cache
            .set_if_absent(&cache_key(&session.token), &bytes, ttl)
            .await
        {
            tracing::debug!(%error, "session not cached");
        }
    }

    /// Caches the slid session over the old copy, but never over a revocation marker written by
    /// a sign-out that raced this refresh.
    async fn remember_refreshed(
        &self,
        session: &pb::Session,
        user: &identity_pb::User,
        now_ms: i64,
    ) {
        let (bytes, ttl) = self.entry(session, user, now_ms);
        let key = cache_key(&session.token);
        if let Err(error) = self.cache.set_unless(&key, REVOKED, &bytes, ttl).await {
            tracing::debug!(%error, "slid session not cached");
            let _ = self.cache.delete(&key).await;
        }
    }

    /// Removes an expired or orphaned session from the table and the cache.
    async fn forget(&self, token: &str) -> Result<(), ErrorCode> {
        self.store.delete(token).await.map_err(internal)?;
        self.bury(token).await;
        Ok(())
    }

    /// Deletes every expired session (run periodically).
    pub async fn sweep(&self) -> Result<u64, ErrorCode> {
        self.store
            .delete_expired(ids::now())
            .await
            .map_err(internal)
    }
}
