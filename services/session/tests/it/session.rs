//! The session store and rules (sliding refresh, remember-me, expiry, revocation, the cache),
//! on SQLite and on PostgreSQL, against a real identity service over gRPC.

use std::time::Duration;

use gatehouse_kit::bus::Bus;
use gatehouse_kit::cache::Cache;
use gatehouse_kit::db::Db;
use gatehouse_kit::outbox::OutboxSignal;
use gatehouse_kit::testing::{fresh_databases, fresh_sqlite_url};
use gatehouse_kit::with_db;
use gatehouse_proto::identity::v1::SignUpEmailRequest;
use gatehouse_proto::identity::v1::identity_service_client::IdentityServiceClient;
use gatehouse_session::MIGRATIONS;
use gatehouse_session::config::Lifetimes;
use gatehouse_session::sessions::{NewSession, Sessions};
use gatehouse_session::store::SessionStore;
use tokio_util::sync::CancellationToken;

/// A real identity service on a random loopback port; returns its URL.
async fn identity_service(shutdown: CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let config = gatehouse_identity::IdentityConfig {
        database_url: fresh_sqlite_url(),
        database_max_connections: 2,
        hash_pool_size: 2,
        hash_queue_limit: 64,
        password_min_length: 8,
        password_max_length: 128,
    };
    tokio::spawn(gatehouse_identity::run(
        config,
        Bus::from_url("memory://").unwrap(),
        listener,
        shutdown,
    ));
    url
}

async fn a_user(identity_url: &str) -> String {
    let mut client =
        IdentityServiceClient::new(gatehouse_kit::client::lazy_channel(identity_url).unwrap());
    let request = SignUpEmailRequest {
        name: "Sam".into(),
        email: format!(
            "{}@example.com",
            gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
        ),
        password: "Correct-Horse-9".into(),
        image: None,
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
    }
}

async fn sessions_on(url: &str, identity_url: &str, lifetimes: Lifetimes) -> Sessions {
    let db = Db::connect(url, 4, &MIGRATIONS).await.expect("database");
    let client =
        IdentityServiceClient::new(gatehouse_kit::client::lazy_channel(identity_url).unwrap());
    Sessions::new(
        SessionStore::new(db, OutboxSignal::default()),
        Cache::from_url("memory://", Duration::from_millis(100)).unwrap(),
        client,
        lifetimes,
        Duration::from_secs(300),
    )
}

fn new_session(user_id: &str, remember_me: bool) -> NewSession {
    NewSession {
        user_id: user_id.into(),
        ip_address: "203.0.113.7".into(),
        user_agent: "test-agent".into(),
        remember_me,
    }
}

async fn rows(db: &Db) -> i64 {
    with_db!(db, pool => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM sessions").fetch_one(pool).await).unwrap()
}

#[tokio::test]
async fn sessions_are_created_read_with_their_user_and_revoked() {
    let shutdown = CancellationToken::new();
    let identity = identity_service(shutdown.clone()).await;
    let user_id = a_user(&identity).await;
    for (backend, url) in fresh_databases().await {
        let sessions = sessions_on(&url, &identity, lifetimes(604_800_000, 86_400_000)).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        assert_eq!(created.token.len(), 32, "{backend:?}");
        assert!(created.token.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(
            created.expires_at_unix_ms - created.created_at_unix_ms,
            604_800_000
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

        sessions.revoke(&created.token).await.unwrap();
        assert_eq!(
            sessions.get(&created.token, false).await.unwrap(),
            None,
            "{backend:?}: revoked (and evicted from the cache)"
        );
        assert_eq!(rows(sessions.store().db()).await, 0);
        let events: Vec<String> = with_db!(sessions.store().db(), pool => sqlx::query_scalar(
            "SELECT topic FROM outbox").fetch_all(pool).await)
        .unwrap();
        assert_eq!(events, vec!["session.revoked".to_string()], "{backend:?}");
        sessions
            .revoke(&created.token)
            .await
            .expect("revoking twice is fine");
    }
    shutdown.cancel();
}

#[tokio::test]
async fn sessions_slide_forward_once_update_age_has_passed() {
    let shutdown = CancellationToken::new();
    let identity = identity_service(shutdown.clone()).await;
    let user_id = a_user(&identity).await;
    for (backend, url) in fresh_databases().await {
        // Expires in 60 s, slid when more than 300 ms have passed since the last slide.
        let sessions = sessions_on(&url, &identity, lifetimes(60_000, 300)).await;
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
        assert!(slid.session.expires_at_unix_ms > created.expires_at_unix_ms);
        let stored = sessions
            .store()
            .find_by_token(&created.token)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            stored.expires_at.timestamp_millis(),
            slid.session.expires_at_unix_ms,
            "{backend:?}: persisted"
        );
        let again = sessions.get(&created.token, false).await.unwrap().unwrap();
        assert!(!again.refreshed, "{backend:?}: just slid, not due again");
        assert_eq!(
            again.session.expires_at_unix_ms, slid.session.expires_at_unix_ms,
            "cache holds the slid expiry"
        );
    }
    shutdown.cancel();
}

#[tokio::test]
async fn dont_remember_sessions_never_slide() {
    let shutdown = CancellationToken::new();
    let identity = identity_service(shutdown.clone()).await;
    let user_id = a_user(&identity).await;
    for (backend, url) in fresh_databases().await {
        let sessions = sessions_on(&url, &identity, lifetimes(60_000, 100)).await;
        let created = sessions.create(new_session(&user_id, false)).await.unwrap();
        assert!(!created.remember_me);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let read = sessions.get(&created.token, false).await.unwrap().unwrap();
        assert!(
            !read.refreshed,
            "{backend:?}: a rememberMe=false session is never refreshed"
        );
        assert_eq!(read.session.expires_at_unix_ms, created.expires_at_unix_ms);
    }
    shutdown.cancel();
}

#[tokio::test]
async fn expired_sessions_are_gone_and_deleted() {
    let shutdown = CancellationToken::new();
    let identity = identity_service(shutdown.clone()).await;
    let user_id = a_user(&identity).await;
    for (backend, url) in fresh_databases().await {
        let sessions = sessions_on(&url, &identity, lifetimes(300, 100_000)).await;
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
            rows(sessions.store().db()).await,
            1,
            "{backend:?}: expired rows read are deleted"
        );
        assert_eq!(
            sessions.sweep().await.unwrap(),
            1,
            "{backend:?}: the sweeper takes the rest"
        );
        assert!(
            sessions
                .store()
                .find_by_token(&swept.token)
                .await
                .unwrap()
                .is_none()
        );
    }
    shutdown.cancel();
}

#[tokio::test]
async fn sessions_of_users_that_no_longer_exist_are_dropped() {
    let shutdown = CancellationToken::new();
    let identity = identity_service(shutdown.clone()).await;
    for (backend, url) in fresh_databases().await {
        let sessions = sessions_on(&url, &identity, lifetimes(60_000, 60_000)).await;
        let orphan = sessions
            .create(new_session("no-such-user-id", true))
            .await
            .unwrap();
        assert_eq!(
            sessions.get(&orphan.token, false).await.unwrap(),
            None,
            "{backend:?}"
        );
        assert_eq!(rows(sessions.store().db()).await, 0, "{backend:?}");
    }
    shutdown.cancel();
}

#[tokio::test]
async fn a_reader_that_raced_a_revocation_cannot_put_the_session_back() {
    let shutdown = CancellationToken::new();
    let identity = identity_service(shutdown.clone()).await;
    let user_id = a_user(&identity).await;
    for (backend, url) in fresh_databases().await {
        let sessions = sessions_on(&url, &identity, lifetimes(60_000, 60_000)).await;
        let created = sessions.create(new_session(&user_id, true)).await.unwrap();
        let key = format!("session:{}", created.token);
        assert!(sessions.get(&created.token, false).await.unwrap().is_some());
        // What a concurrent get-session read from the database just before the sign-out.
        let stale = sessions.cache().get(&key).await.unwrap().expect("cached");

        sessions.revoke(&created.token).await.unwrap();
        let put_back = sessions
            .cache()
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
    shutdown.cancel();
}
