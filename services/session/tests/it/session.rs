//! The session rules and store (sliding refresh, remember-me, expiry, listing, revocation, the
//! cache), on SQLite and on PostgreSQL, against a real identity service over gRPC.

use std::time::Duration;

use chrono::TimeDelta;
use gatehouse_kit::cache::Cache;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_kit::service::{Context, Part};
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_kit::testing::TestDb;
use gatehouse_proto::identity::v1::SignUpEmailRequest;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use gatehouse_session::MIGRATIONS;
use gatehouse_session::config::Lifetimes;
use gatehouse_session::session::cache::{SessionCache, key as cache_key};
use gatehouse_session::session::store::ActiveChange;
use gatehouse_session::session::{NewSession, Sessions, store};
use rstest::rstest;
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "session-tests-service-token-0123456789";

fn token() -> ServiceToken {
    ServiceToken::new(TOKEN).unwrap()
}

/// A real identity service on a random loopback port (SQLite in a temporary directory).
struct IdentityService {
    url: String,
    shutdown: CancellationToken,
    _database: TestDb,
}

impl Drop for IdentityService {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn identity_service() -> IdentityService {
    let database = TestDb::new(Backend::Sqlite).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let env = Env::from_pairs([
        ("IDENTITY_DATABASE_URL", database.url.as_str()),
        ("HASH_POOL_SIZE", "2"),
        ("SERVICE_TOKEN", TOKEN),
    ]);
    let shutdown = CancellationToken::new();
    tokio::spawn(gatehouse_identity::SERVICE.run(
        Context::from_env(env).unwrap(),
        listener,
        shutdown.clone(),
    ));
    IdentityService {
        url,
        shutdown,
        _database: database,
    }
}

async fn a_user(identity_url: &str) -> String {
    let mut client = EmailPasswordServiceClient::new(
        gatehouse_kit::client::lazy_channel(identity_url, &token()).unwrap(),
    );
    let request = SignUpEmailRequest {
        name: "Sam".into(),
        email: format!(
            "{}@example.com",
            gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
        ),
        password: "Correct-Horse-9".into(),
        image: None,
        ..Default::default()
    };
    // The service may still be starting: retry briefly.
    for _ in 0..50 {
        if let Ok(response) = client.sign_up_email(request.clone()).await {
            return response.into_inner().user.unwrap().id;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("identity service did not answer");
}

fn lifetimes(expires_in: u64, update_age: u64) -> Lifetimes {
    Lifetimes {
        expires_in: Duration::from_millis(expires_in),
        update_age: Duration::from_millis(update_age),
        fresh_age: Duration::from_secs(86_400),
        dont_remember_expires_in: Duration::from_millis(expires_in),
        max_lifetime: Duration::from_secs(30 * 86_400),
    }
}

async fn sessions_on(
    backend: Backend,
    identity_url: &str,
    lifetimes: Lifetimes,
) -> (Sessions, TestDb) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&MIGRATIONS).await;
    let users = UserServiceClient::new(
        gatehouse_kit::client::lazy_channel(identity_url, &token()).unwrap(),
    );
    let cache = Cache::from_url("memory://", Duration::from_millis(100)).unwrap();
    let sessions = Sessions::new(
        db,
        SessionCache::new(cache, Duration::from_secs(300), [7; 32]),
        users,
        lifetimes,
    );
    (sessions, database)
}

fn new_session(user_id: &str, remember_me: bool) -> NewSession {
    NewSession {
        user_id: user_id.into(),
        ip_address: "203.0.113.7".into(),
        user_agent: "test-agent".into(),
        remember_me,
        impersonation: None,
    }
}

async fn rows(db: &Db) -> i64 {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM sessions")
        .fetch_one(db)
        .await
        .unwrap();
    n
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sessions_are_created_read_with_their_user_and_revoked(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(604_800_000, 86_400_000)).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        assert_eq!(created.token.len(), 32, "{backend:?}");
        assert!(created.token.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(
            created.expires_at - created.created_at,
            TimeDelta::milliseconds(604_800_000)
        );
        assert_eq!(created.ip_address, "203.0.113.7");

        let found = sessions
            .get(&created.token, false)
            .await
            .unwrap()
            .expect("found");
        assert_eq!(found.session, created, "{backend:?}");
        assert_eq!(found.user.id, user_id);
        assert!(!found.refreshed);
        assert!(found.fresh);

        // Unknown and malformed tokens are simply "no session".
        assert_eq!(
            sessions.get("A".repeat(32).as_str(), false).await.unwrap(),
            None
        );
        assert_eq!(sessions.get("short", false).await.unwrap(), None);

        sessions.revoke(&created.token, None).await.unwrap();
        assert_eq!(
            sessions.get(&created.token, false).await.unwrap(),
            None,
            "{backend:?}: revoked (and evicted from the cache)"
        );
        assert_eq!(rows(sessions.db()).await, 0);
        let events: Vec<(String,)> = query("SELECT topic FROM outbox")
            .fetch_all(sessions.db())
            .await
            .unwrap();
        assert_eq!(
            events,
            vec![("session.revoked".to_string(),)],
            "{backend:?}"
        );
        sessions
            .revoke(&created.token, None)
            .await
            .expect("revoking twice is fine");
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sessions_slide_forward_once_update_age_has_passed(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        // Expires in 60 s, slid when more than 300 ms have passed since the last slide.
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(60_000, 300)).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        let early = sessions.get(&created.token, false).await.unwrap().unwrap();
        assert!(!early.refreshed, "{backend:?}: not due yet");
        tokio::time::sleep(Duration::from_millis(400)).await;
        let disabled = sessions.get(&created.token, true).await.unwrap().unwrap();
        assert!(
            !disabled.refreshed,
            "{backend:?}: disableRefresh is honoured"
        );
        let slid = sessions.get(&created.token, false).await.unwrap().unwrap();
        assert!(slid.refreshed, "{backend:?}: due, so slid");
        assert!(slid.session.expires_at > created.expires_at);
        let stored = store::find_by_token(sessions.db(), &created.token)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            stored.expires_at, slid.session.expires_at,
            "{backend:?}: persisted"
        );
        let again = sessions.get(&created.token, false).await.unwrap().unwrap();
        assert!(!again.refreshed, "{backend:?}: just slid, not due again");
        assert_eq!(
            again.session.expires_at, slid.session.expires_at,
            "cache holds the slid expiry"
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sliding_never_passes_the_absolute_lifetime(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        // Slides after 100 ms to 60 s ahead, but no session lives longer than 1.2 s.
        let capped = Lifetimes {
            max_lifetime: Duration::from_millis(1_200),
            ..lifetimes(60_000, 100)
        };
        let (sessions, _database) = sessions_on(backend, &identity.url, capped).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        assert_eq!(
            created.expires_at - created.created_at,
            TimeDelta::milliseconds(1_200),
            "{backend:?}: a new session already ends at the limit"
        );
        let mut slides = 0;
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(150)).await;
            let read = sessions.get(&created.token, false).await.unwrap().unwrap();
            slides += usize::from(read.refreshed);
            assert!(read.session.expires_at <= created.expires_at, "{backend:?}");
        }
        assert_eq!(slides, 0, "{backend:?}: nothing to slide past the limit");
        assert_eq!(sessions.list(&user_id).await.unwrap().len(), 1);
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(
            sessions.get(&created.token, false).await.unwrap(),
            None,
            "{backend:?}: used every 150 ms, still over at 1.2 s"
        );
        assert!(sessions.list(&user_id).await.unwrap().is_empty());
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_old_session_slid_past_the_limit_is_over_anyway(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        // A row written before the limit existed: created 40 days ago, slid to next week.
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(604_800_000, 86_400_000)).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        query("UPDATE sessions SET created_at = $1")
            .bind(created.created_at - TimeDelta::days(40))
            .execute(sessions.db())
            .await
            .unwrap();
        sessions.cache().evict(&created.token).await.unwrap();
        assert_eq!(sessions.get(&created.token, false).await.unwrap(), None);
        assert_eq!(rows(sessions.db()).await, 0, "{backend:?}: and deleted");
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn dont_remember_sessions_never_slide(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(60_000, 100)).await;
        let created = sessions.create(new_session(&user_id, false)).await.unwrap();
        assert!(!created.remember_me);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let read = sessions.get(&created.token, false).await.unwrap().unwrap();
        assert!(
            !read.refreshed,
            "{backend:?}: a rememberMe=false session is never refreshed"
        );
        assert_eq!(read.session.expires_at, created.expires_at);
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn expired_sessions_are_gone_and_deleted(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(300, 100_000)).await;
        let read_later = sessions.create(new_session(&user_id, true)).await.unwrap();
        let cached = sessions.create(new_session(&user_id, true)).await.unwrap();
        let swept = sessions.create(new_session(&user_id, true)).await.unwrap();
        assert!(
            sessions.get(&cached.token, false).await.unwrap().is_some(),
            "cached while alive"
        );
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(
            sessions.get(&read_later.token, false).await.unwrap(),
            None,
            "{backend:?}"
        );
        assert_eq!(
            sessions.get(&cached.token, false).await.unwrap(),
            None,
            "{backend:?}: a cache hit is checked too"
        );
        assert_eq!(
            rows(sessions.db()).await,
            1,
            "{backend:?}: expired rows read are deleted"
        );
        assert_eq!(
            sessions.sweep().await.unwrap(),
            1,
            "{backend:?}: the sweeper takes the rest"
        );
        assert!(
            store::find_by_token(sessions.db(), &swept.token)
                .await
                .unwrap()
                .is_none()
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sessions_of_users_that_no_longer_exist_are_dropped(#[case] backend: Backend) {
    let identity = identity_service().await;
    {
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
        let orphan = sessions
            .create(new_session("no-such-user-id", true))
            .await
            .unwrap();
        assert_eq!(
            sessions.get(&orphan.token, false).await.unwrap(),
            None,
            "{backend:?}"
        );
        assert_eq!(rows(sessions.db()).await, 0, "{backend:?}");
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_reader_that_raced_a_revocation_cannot_put_the_session_back(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    {
        let (sessions, _database) =
            sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        let key = cache_key(&created.token);
        assert!(sessions.get(&created.token, false).await.unwrap().is_some());
        // What a concurrent get-session read from the database just before the sign-out.
        let cache = sessions.cache().inner();
        let stale = cache.get(&key).await.unwrap().expect("cached");

        sessions.revoke(&created.token, None).await.unwrap();
        let put_back = cache
            .set_if_absent(&key, &stale, Duration::from_secs(300))
            .await
            .unwrap();
        assert!(
            !put_back,
            "{backend:?}: the revocation marker wins over a late fill"
        );
        assert_eq!(
            sessions.get(&created.token, false).await.unwrap(),
            None,
            "{backend:?}"
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_user_lists_their_own_unexpired_sessions_only(#[case] backend: Backend) {
    let identity = identity_service().await;
    let (alice, bob) = (a_user(&identity.url).await, a_user(&identity.url).await);
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
    let first = sessions.create(new_session(&alice, true)).await.unwrap();
    let second = sessions.create(new_session(&alice, false)).await.unwrap();
    sessions.create(new_session(&bob, true)).await.unwrap();
    let listed = sessions.list(&alice).await.unwrap();
    assert_eq!(
        listed,
        vec![first.clone(), second],
        "{backend:?}: oldest first"
    );
    sessions.revoke(&first.token, None).await.unwrap();
    assert_eq!(sessions.list(&alice).await.unwrap().len(), 1, "{backend:?}");
    assert!(sessions.list("nobody").await.unwrap().is_empty());

    let (short, _short_db) = sessions_on(backend, &identity.url, lifetimes(200, 60_000)).await;
    short.create(new_session(&alice, true)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        short.list(&alice).await.unwrap().is_empty(),
        "{backend:?}: expired sessions are not listed"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_reader_that_raced_a_user_change_cannot_cache_the_old_user(#[case] backend: Backend) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
    let created = sessions.create(new_session(&user_id, true)).await.unwrap();
    let key = cache_key(&created.token);
    assert!(sessions.get(&created.token, false).await.unwrap().is_some());
    let cache = sessions.cache().inner();
    // What a concurrent get-session read (with the old user) just before the change.
    let stale = cache.get(&key).await.unwrap().expect("cached");

    sessions.cache().evict(&created.token).await.unwrap();
    let refilled = cache
        .set_if_absent(&key, &stale, Duration::from_secs(300))
        .await
        .unwrap();
    assert!(
        !refilled,
        "{backend:?}: a late fill cannot bring the old user back"
    );
    let slid = cache
        .set_unless(&key, b"marker:", &stale, Duration::from_secs(300))
        .await
        .unwrap();
    assert!(!slid, "{backend:?}: nor can a racing refresh");
    let read = sessions.get(&created.token, false).await.unwrap();
    assert_eq!(
        read.map(|r| r.session.token),
        Some(created.token),
        "{backend:?}: the session itself is still valid"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_user_revokes_only_their_own_sessions(#[case] backend: Backend) {
    let identity = identity_service().await;
    let (alice, bob) = (a_user(&identity.url).await, a_user(&identity.url).await);
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
    let mine = sessions.create(new_session(&alice, true)).await.unwrap();
    let theirs = sessions.create(new_session(&bob, true)).await.unwrap();
    // Both cached, so a wrong eviction would show.
    assert!(sessions.get(&theirs.token, false).await.unwrap().is_some());

    let revoked = sessions.revoke(&theirs.token, Some(&alice)).await.unwrap();
    assert!(!revoked, "{backend:?}: not Alice's to revoke");
    assert!(
        sessions.get(&theirs.token, false).await.unwrap().is_some(),
        "{backend:?}: Bob's session survives, in the cache too"
    );
    assert!(sessions.revoke(&mine.token, Some(&alice)).await.unwrap());
    assert_eq!(sessions.get(&mine.token, false).await.unwrap(), None);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn revoking_all_sessions_keeps_only_the_one_asked_for(#[case] backend: Backend) {
    let identity = identity_service().await;
    let (alice, bob) = (a_user(&identity.url).await, a_user(&identity.url).await);
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
    let current = sessions.create(new_session(&alice, true)).await.unwrap();
    let other = sessions.create(new_session(&alice, false)).await.unwrap();
    let third = sessions.create(new_session(&alice, true)).await.unwrap();
    let bobs = sessions.create(new_session(&bob, true)).await.unwrap();
    for token in [&current.token, &other.token, &third.token, &bobs.token] {
        assert!(sessions.get(token, false).await.unwrap().is_some());
    }

    let ended = sessions
        .revoke_all(&alice, Some(&current.token))
        .await
        .unwrap();
    assert_eq!(ended, 2, "{backend:?}");
    assert_eq!(sessions.list(&alice).await.unwrap(), vec![current.clone()]);
    for token in [&other.token, &third.token] {
        assert_eq!(
            sessions.get(token, false).await.unwrap(),
            None,
            "{backend:?}: gone from the cache too"
        );
    }
    let revoked_events: Vec<(i64,)> =
        query("SELECT COUNT(*) FROM outbox WHERE topic = 'session.revoked'")
            .fetch_all(sessions.db())
            .await
            .unwrap();
    assert_eq!(revoked_events, vec![(2,)], "{backend:?}: one event each");

    assert_eq!(sessions.revoke_all(&alice, None).await.unwrap(), 1);
    assert_eq!(sessions.get(&current.token, false).await.unwrap(), None);
    assert!(
        sessions.get(&bobs.token, false).await.unwrap().is_some(),
        "{backend:?}: another user's session is untouched"
    );
    assert_eq!(sessions.revoke_all("nobody", None).await.unwrap(), 0);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn impersonation_sessions_are_short_never_slide_and_only_admins_see_them(
    #[case] backend: Backend,
) {
    let identity = identity_service().await;
    let (user, admin) = (a_user(&identity.url).await, a_user(&identity.url).await);
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
    let own = sessions.create(new_session(&user, true)).await.unwrap();
    let impersonation = sessions
        .create(NewSession {
            impersonation: Some((admin.clone(), Duration::from_secs(3600))),
            ..new_session(&user, true)
        })
        .await
        .unwrap();
    assert_eq!(
        impersonation.impersonated_by.as_deref(),
        Some(admin.as_str())
    );
    assert!(!impersonation.remember_me, "{backend:?}: never slid");
    let lifetime = impersonation.expires_at - impersonation.created_at;
    assert_eq!(lifetime, TimeDelta::seconds(3600), "{backend:?}");
    let read = sessions
        .get(&impersonation.token, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.session, impersonation,
        "{backend:?}: stored as created"
    );

    assert_eq!(
        sessions.list(&user).await.unwrap(),
        vec![own.clone()],
        "{backend:?}: the user does not see the impersonation"
    );
    assert_eq!(
        sessions.list_all(&user).await.unwrap(),
        vec![own, impersonation],
        "{backend:?}: an admin sees every row"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_banned_user_has_no_session_and_an_admins_impersonations_end_with_theirs(
    #[case] backend: Backend,
) {
    let identity = identity_service().await;
    let (user, admin) = (a_user(&identity.url).await, a_user(&identity.url).await);
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(60_000, 60_000)).await;
    let impersonation = sessions
        .create(NewSession {
            impersonation: Some((admin.clone(), Duration::from_secs(3600))),
            ..new_session(&user, false)
        })
        .await
        .unwrap();
    let own = sessions.create(new_session(&user, true)).await.unwrap();
    assert_eq!(
        sessions.revoke_all(&admin, None).await.unwrap(),
        1,
        "{backend:?}: the admin's impersonation ends with the admin's sessions"
    );
    assert_eq!(
        sessions.get(&impersonation.token, false).await.unwrap(),
        None
    );

    // A session made while the ban was being applied (the sign-in had passed its check).
    let identity_db = Db::connect(&identity._database.url, 1, &gatehouse_identity::MIGRATIONS)
        .await
        .unwrap();
    query("UPDATE users SET banned = TRUE WHERE id = $1")
        .bind(user.as_str())
        .execute(&identity_db)
        .await
        .unwrap();
    assert_eq!(
        sessions.get(&own.token, false).await.unwrap(),
        None,
        "{backend:?}: read afresh, the banned user's session is refused"
    );
    assert_eq!(rows(sessions.db()).await, 0, "{backend:?}: and deleted");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_active_organization_and_team_change_and_the_next_read_shows_it(
    #[case] backend: Backend,
) {
    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(604_800_000, 86_400_000)).await;
    let created = sessions.create(new_session(&user_id, true)).await.unwrap();
    assert_eq!(created.active_organization_id, None);
    // Cached before the change: the change must not be hidden behind the cached copy.
    sessions.get(&created.token, false).await.unwrap().unwrap();

    let both = ActiveChange {
        organization: Some(Some("org-1".into())),
        team: Some(Some("team-1".into())),
    };
    let changed = sessions
        .set_active(&created.token, &both)
        .await
        .unwrap()
        .expect("a live session");
    assert_eq!(changed.active_organization_id.as_deref(), Some("org-1"));
    assert_eq!(changed.active_team_id.as_deref(), Some("team-1"));
    assert_eq!(changed.id, created.id);
    let read = sessions.get(&created.token, false).await.unwrap().unwrap();
    assert_eq!(
        read.session, changed,
        "{backend:?}: read back, not the cached copy"
    );

    // The team alone changes; the organization stays.
    let team_only = ActiveChange {
        organization: None,
        team: Some(None),
    };
    let changed = sessions
        .set_active(&created.token, &team_only)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed.active_organization_id.as_deref(), Some("org-1"));
    assert_eq!(changed.active_team_id, None);
    assert_eq!(
        sessions
            .get(&created.token, false)
            .await
            .unwrap()
            .unwrap()
            .session
            .active_team_id,
        None
    );

    // An unknown or revoked token changes nothing and says so.
    assert_eq!(
        sessions.set_active(&"B".repeat(32), &both).await.unwrap(),
        None
    );
    sessions.revoke(&created.token, None).await.unwrap();
    assert_eq!(
        sessions.set_active(&created.token, &both).await.unwrap(),
        None
    );
}

/// A sign-in whose session cannot be written because PostgreSQL is unreachable (restarting,
/// cut off) is the server's 503, never better-auth's `FAILED_TO_CREATE_SESSION` (a 401 that
/// tells someone with the right password their credentials failed, and that no client retries).
#[tokio::test]
async fn a_session_that_cannot_be_stored_while_the_database_is_down_is_503_not_401() {
    use gatehouse_kit::errors::{Failure, base};
    use gatehouse_kit::testing::{ToggleProxy, postgres_target, postgres_url_through};

    let identity = identity_service().await;
    let user_id = a_user(&identity.url).await;
    let database = TestDb::new(Backend::Postgres).await;
    database.connect(&MIGRATIONS).await;
    let proxy = ToggleProxy::start(&postgres_target(&database.url)).await;
    let db = Db::connect(
        &postgres_url_through(&database.url, proxy.addr),
        2,
        &MIGRATIONS,
    )
    .await
    .unwrap();
    let cache = Cache::from_url("memory://", Duration::from_millis(100)).unwrap();
    let sessions = Sessions::new(
        db,
        SessionCache::new(cache, Duration::from_secs(300), [7; 32]),
        UserServiceClient::new(
            gatehouse_kit::client::lazy_channel(&identity.url, &token()).unwrap(),
        ),
        lifetimes(604_800_000, 86_400_000),
    );
    sessions.create(new_session(&user_id, true)).await.unwrap();

    proxy.cut();
    let error = sessions
        .create(new_session(&user_id, true))
        .await
        .expect_err("the database is unreachable");
    let failure = Failure::from_status(&tonic::Status::from(error));
    assert!(failure.is(base::SERVICE_UNAVAILABLE), "{failure:?}");
    assert_eq!(failure.http_status(), 503);

    proxy.restore();
    let again = gatehouse_kit::testing::eventually(Duration::from_secs(10), || async {
        sessions.create(new_session(&user_id, true)).await.ok()
    })
    .await;
    assert!(again.is_some(), "sessions are stored again once it is back");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_sign_in_from_a_device_new_to_the_user_is_announced_once(#[case] backend: Backend) {
    use gatehouse_proto::events::v1::SessionNewDevice;
    use prost::Message as _;
    const CHROME_LINUX: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    const FIREFOX_WINDOWS: &str =
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
    let identity = identity_service().await;
    let user = a_user(&identity.url).await;
    let admin = a_user(&identity.url).await;
    let (sessions, _database) =
        sessions_on(backend, &identity.url, lifetimes(604_800_000, 86_400_000)).await;
    let announced = || async {
        let rows: Vec<(Vec<u8>,)> =
            query("SELECT payload FROM outbox WHERE topic = 'session.new-device' ORDER BY id")
                .fetch_all(sessions.db())
                .await
                .unwrap();
        rows.iter()
            .map(|(payload,)| SessionNewDevice::decode(payload.as_slice()).unwrap())
            .collect::<Vec<_>>()
    };
    let from = |user_agent: &str| NewSession {
        user_agent: user_agent.into(),
        ..new_session(&user, true)
    };

    // The first device is the sign-up's: no news. Again, or a newer version of it: none.
    sessions.create(from(CHROME_LINUX)).await.unwrap();
    sessions
        .create(from(&CHROME_LINUX.replace("131.0.0.0", "142.0.1.2")))
        .await
        .unwrap();
    // No User-Agent says nothing of a device; an admin impersonating is not the user.
    sessions.create(from("")).await.unwrap();
    sessions
        .create(NewSession {
            impersonation: Some((admin.clone(), Duration::from_secs(3600))),
            ..from(FIREFOX_WINDOWS)
        })
        .await
        .unwrap();
    assert!(announced().await.is_empty(), "{backend:?}");

    let new = sessions.create(from(FIREFOX_WINDOWS)).await.unwrap();
    sessions.create(from(FIREFOX_WINDOWS)).await.unwrap();
    let events = announced().await;
    assert_eq!(events.len(), 1, "{backend:?}: once per device");
    assert_eq!(events[0].session_id, new.id);
    assert_eq!(events[0].user_id, user);
    assert_eq!(events[0].device, "Firefox, Windows");
    assert_eq!(events[0].ip_address, "203.0.113.7");
}
