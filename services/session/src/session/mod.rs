//! The `session` capability (`gatehouse.session.v1.SessionService`): creation, lookup through
//! the read-through cache with sliding refresh, listing and revocation.

pub mod cache;
pub mod device;
pub mod events;
pub mod grpc;
pub mod store;

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::client::ServiceChannel;
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::ids;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;

use crate::config::Lifetimes;
use crate::error::SessionError;
use cache::{Cached, SessionCache};

const TOKEN_LENGTH: usize = 32;

/// A session as the session service keeps it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Session {
    pub id: String,
    pub token: String,
    pub user_id: String,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub ip_address: String,
    pub user_agent: String,
    /// false for a "don't remember me" sign-in: a short session that never slides.
    pub remember_me: bool,
    /// The admin who started this impersonation session, if it is one.
    pub impersonated_by: Option<String>,
    /// Organization plugin: the organization and team the user is working in.
    pub active_organization_id: Option<String>,
    pub active_team_id: Option<String>,
}

/// A session found for a token, with its user as the identity service describes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub session: Session,
    pub user: identity_pb::User,
    pub refreshed: bool,
    pub fresh: bool,
}

pub struct NewSession {
    pub user_id: String,
    pub ip_address: String,
    pub user_agent: String,
    pub remember_me: bool,
    /// An impersonation session: who started it, and how long it lives.
    pub impersonation: Option<(String, Duration)>,
}

#[derive(Clone)]
pub struct Sessions {
    db: Db,
    cache: SessionCache,
    users: UserServiceClient<ServiceChannel>,
    lifetimes: Lifetimes,
}

fn delta(duration: Duration) -> TimeDelta {
    TimeDelta::from_std(duration).unwrap_or(TimeDelta::MAX)
}

impl Sessions {
    pub fn new(
        db: Db,
        cache: SessionCache,
        users: UserServiceClient<ServiceChannel>,
        lifetimes: Lifetimes,
    ) -> Self {
        Self {
            db,
            cache,
            users,
            lifetimes,
        }
    }

    pub fn cache(&self) -> &SessionCache {
        &self.cache
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    pub async fn create(&self, new: NewSession) -> Result<Session, SessionError> {
        let now = ids::now();
        let lifetime = match &new.impersonation {
            Some((_, lifetime)) => *lifetime,
            None if new.remember_me => self.lifetimes.expires_in,
            None => self.lifetimes.dont_remember_expires_in,
        };
        let session = Session {
            id: ids::new_id(),
            token: ids::random_alphanumeric(TOKEN_LENGTH),
            user_id: new.user_id,
            expires_at: now + delta(lifetime.min(self.lifetimes.max_lifetime)),
            created_at: now,
            updated_at: now,
            ip_address: new.ip_address,
            user_agent: new.user_agent,
            // An impersonation session never slides.
            remember_me: new.remember_me && new.impersonation.is_none(),
            impersonated_by: new.impersonation.map(|(admin, _)| admin),
            active_organization_id: None,
            active_team_id: None,
        };
        // A storage failure is the server's (503 or 500): answering better-auth's
        // FAILED_TO_CREATE_SESSION, a 401, would tell a user with the right password that
        // their credentials failed, and no client retries a 401.
        // An admin's impersonation is no sign-in of the user's own.
        let device = if session.impersonated_by.is_none() {
            device::describe(&session.user_agent)
        } else {
            None
        };
        store::insert(&self.db, &session, device.as_deref()).await?;
        Ok(session)
    }

    /// The live session for `token`, slid forward when due (unless `disable_refresh` or the
    /// session is a "don't remember me" one). `None` for unknown or expired tokens.
    pub async fn get(
        &self,
        token: &str,
        disable_refresh: bool,
    ) -> Result<Option<Resolved>, SessionError> {
        if token.len() != TOKEN_LENGTH || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(None);
        }
        let now = ids::now();
        let (mut session, user) = match self.cache.get(token).await {
            Cached::Hit(hit) => *hit,
            Cached::Revoked => return Ok(None),
            Cached::Miss => match self.load(token, now).await? {
                Some(loaded) => loaded,
                None => return Ok(None),
            },
        };
        if session.expires_at <= now || self.past_max_lifetime(&session, now) {
            self.forget(token).await?;
            return Ok(None);
        }
        let due = session.expires_at - delta(self.lifetimes.expires_in)
            + delta(self.lifetimes.update_age)
            <= now;
        // Sliding never passes the absolute limit; a session already at it stays put.
        let expires_at = (now + delta(self.lifetimes.expires_in)).min(self.absolute_end(&session));
        let mut refreshed = false;
        if due && session.remember_me && !disable_refresh && expires_at > session.expires_at {
            if !store::extend(&self.db, token, expires_at, now).await? {
                self.cache.bury(token).await;
                return Ok(None);
            }
            session.expires_at = expires_at;
            session.updated_at = now;
            refreshed = true;
            self.cache
                .refresh(&session, &user, now.timestamp_millis())
                .await;
        }
        Ok(Some(Resolved {
            fresh: self.is_fresh(&session, now),
            session,
            user,
            refreshed,
        }))
    }

    /// When the session ends however much it is used (`SESSION_MAX_LIFETIME`).
    fn absolute_end(&self, session: &Session) -> DateTime<Utc> {
        session.created_at + delta(self.lifetimes.max_lifetime)
    }

    fn past_max_lifetime(&self, session: &Session, now: DateTime<Utc>) -> bool {
        self.absolute_end(session) <= now
    }

    /// Signed in less than `fresh_age` ago (always, when `fresh_age` is 0).
    fn is_fresh(&self, session: &Session, now: DateTime<Utc>) -> bool {
        self.lifetimes.fresh_age.is_zero()
            || now - session.created_at < delta(self.lifetimes.fresh_age)
    }

    /// The user's unexpired sessions.
    /// The user's unexpired sessions, impersonation sessions left out (what the user sees).
    pub async fn list(&self, user_id: &str) -> Result<Vec<Session>, SessionError> {
        let now = ids::now();
        let mut sessions = store::list_for_user(&self.db, user_id, Some(now)).await?;
        // Sessions slid before the limit existed may still hold a later expiry.
        sessions.retain(|s| !self.past_max_lifetime(s, now) && s.impersonated_by.is_none());
        Ok(sessions)
    }

    /// Every session row of the user, expired and impersonation ones too (what an admin sees).
    pub async fn list_all(&self, user_id: &str) -> Result<Vec<Session>, SessionError> {
        Ok(store::list_for_user(&self.db, user_id, None).await?)
    }

    /// Deletes the session (when `owner` is given, only if it is theirs); unknown tokens are
    /// fine (sign-out is idempotent). `true` when a session ended.
    pub async fn revoke(&self, token: &str, owner: Option<&str>) -> Result<bool, SessionError> {
        let revoked = store::revoke(&self.db, token, owner).await?;
        if revoked || owner.is_none() {
            self.cache.bury(token).await;
        }
        Ok(revoked)
    }

    /// Deletes every session of `user_id` but `except`; returns how many ended.
    pub async fn revoke_all(
        &self,
        user_id: &str,
        except: Option<&str>,
    ) -> Result<usize, SessionError> {
        let tokens = store::revoke_for_user(&self.db, user_id, except).await?;
        for token in &tokens {
            self.cache.bury(token).await;
        }
        Ok(tokens.len())
    }

    /// Changes the active organization and/or team of the live session of `token`; `None` when
    /// there is none. The cached copy goes, so the next read (on any replica) shows the change.
    pub async fn set_active(
        &self,
        token: &str,
        change: &store::ActiveChange,
    ) -> Result<Option<Session>, SessionError> {
        let Some(session) = store::set_active(&self.db, token, change, ids::now()).await? else {
            return Ok(None);
        };
        self.cache.evict(token).await.map_err(|error| {
            SessionError::internal(
                "evicting a cached session",
                base::INTERNAL_SERVER_ERROR,
                error,
            )
        })?;
        Ok(Some(session))
    }

    /// Drops the cached copies of every session of `user_id`, so their next read fetches the
    /// user afresh (what the `user.updated` consumer does, for a caller who cannot wait).
    pub async fn evict_user(&self, user_id: &str) -> Result<(), SessionError> {
        for token in store::tokens_of(&self.db, user_id).await? {
            self.cache.evict(&token).await.map_err(|error| {
                SessionError::internal(
                    "evicting a cached session",
                    base::INTERNAL_SERVER_ERROR,
                    error,
                )
            })?;
        }
        Ok(())
    }

    async fn load(
        &self,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, identity_pb::User)>, SessionError> {
        let Some(session) = store::find_by_token(&self.db, token).await? else {
            return Ok(None);
        };
        if session.expires_at <= now || self.past_max_lifetime(&session, now) {
            self.forget(token).await?;
            return Ok(None);
        }
        let found = self
            .users
            .clone()
            .get_user(identity_pb::GetUserRequest {
                id: session.user_id.clone(),
            })
            .await;
        let user = match found {
            Ok(response) => response.into_inner().user,
            Err(status) => {
                let failure = Failure::from_status(&status);
                if !failure.is(base::USER_NOT_FOUND) {
                    return Err(SessionError::Upstream(failure));
                }
                None
            }
        };
        let Some(user) = user else {
            // The user is gone: the session is an orphan.
            self.forget(token).await?;
            return Ok(None);
        };
        if is_banned(&user, now) {
            // A session created while a ban was being applied (a sign-in already past its
            // check): a banned user has no session, however it was made.
            self.forget(token).await?;
            return Ok(None);
        }
        self.cache
            .fill(&session, &user, now.timestamp_millis())
            .await;
        Ok(Some((session, user)))
    }

    /// Removes an expired or orphaned session from the table and the cache.
    async fn forget(&self, token: &str) -> Result<(), SessionError> {
        store::delete(&self.db, token).await?;
        self.cache.bury(token).await;
        Ok(())
    }

    /// Deletes every expired session (run periodically).
    pub async fn sweep(&self) -> Result<u64, SessionError> {
        Ok(store::delete_expired(&self.db, ids::now()).await?)
    }
}

/// A ban in force: set, and not yet expired.
fn is_banned(user: &identity_pb::User, now: DateTime<Utc>) -> bool {
    user.banned
        && user
            .ban_expires_unix_ms
            .is_none_or(|expires| expires > now.timestamp_millis())
}
