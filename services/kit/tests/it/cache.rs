//! The Redis cache against a real Redis (127.0.0.1:6379): expiring entries, fill-only-if-empty,
//! rate-limit windows, and deletes made while Redis is unreachable being replayed first.

use std::time::Duration;

use gatehouse_kit::cache::{Cache, CacheError};
use gatehouse_kit::ids::random_alphanumeric;
use gatehouse_kit::testing::{ToggleProxy, eventually};

const REDIS: &str = "127.0.0.1:6379";

fn key() -> String {
    format!("test:{}", random_alphanumeric(12))
}

fn redis(addr: &str) -> Cache {
    Cache::from_url(&format!("redis://{addr}"), Duration::from_millis(200)).unwrap()
}

#[tokio::test]
async fn entries_expire_and_fills_never_overwrite() {
    let cache = redis(REDIS);
    let k = key();
    cache
        .set(&k, b"v1", Duration::from_millis(300))
        .await
        .expect("Redis is required for this suite");
    assert_eq!(cache.get(&k).await.unwrap().as_deref(), Some(&b"v1"[..]));
    assert!(
        !cache
            .set_if_absent(&k, b"v2", Duration::from_secs(5))
            .await
            .unwrap()
    );
    assert_eq!(cache.get(&k).await.unwrap().as_deref(), Some(&b"v1"[..]));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(cache.get(&k).await.unwrap(), None, "expired");
    assert!(
        cache
            .set_if_absent(&k, b"v3", Duration::from_secs(5))
            .await
            .unwrap()
    );
    assert!(
        !cache
            .set_unless(&k, b"v3", b"v4", Duration::from_secs(5))
            .await
            .unwrap(),
        "guarded value kept"
    );
    assert_eq!(cache.get(&k).await.unwrap().as_deref(), Some(&b"v3"[..]));
    assert!(
        cache
            .set_unless(&k, b"other", b"v5", Duration::from_secs(5))
            .await
            .unwrap()
    );
    assert_eq!(cache.get(&k).await.unwrap().as_deref(), Some(&b"v5"[..]));
    cache.delete(&k).await.unwrap();
    assert_eq!(cache.get(&k).await.unwrap(), None);
}

#[tokio::test]
async fn windows_count_hits_and_restart_after_they_end() {
    let cache = redis(REDIS);
    let k = key();
    let window = Duration::from_millis(400);
    let (first, left) = cache.hit_window(&k, window).await.unwrap();
    assert_eq!(first, 1);
    assert!(left > Duration::ZERO && left <= window, "{left:?}");
    assert_eq!(cache.hit_window(&k, window).await.unwrap().0, 2);
    assert_eq!(cache.hit_window(&k, window).await.unwrap().0, 3);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        cache.hit_window(&k, window).await.unwrap().0,
        1,
        "a new window"
    );
}

#[tokio::test]
async fn deletes_during_an_outage_are_replayed_before_reads() {
    let proxy = ToggleProxy::start(REDIS).await;
    let cache = redis(&proxy.addr.to_string());
    let direct = redis(REDIS);
    let k = key();
    cache
        .set(&k, b"stale", Duration::from_secs(30))
        .await
        .unwrap();

    proxy.cut();
    assert!(cache.delete(&k).await.is_err(), "Redis is unreachable");
    assert!(
        cache.get(&k).await.is_err(),
        "and reads fail rather than guess"
    );
    assert_eq!(
        direct.get(&k).await.unwrap().as_deref(),
        Some(&b"stale"[..]),
        "still in Redis"
    );

    proxy.restore();
    let mut read = Err(());
    for _ in 0..40 {
        if let Ok(value) = cache.get(&k).await {
            read = Ok(value);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        read,
        Ok(None),
        "the deferred delete ran before the first read"
    );
    assert_eq!(direct.get(&k).await.unwrap(), None);
}

#[tokio::test]
async fn an_outage_opens_the_breaker_so_calls_fail_at_once_until_redis_answers() {
    let proxy = ToggleProxy::start(REDIS).await;
    let cache = redis(&proxy.addr.to_string());
    let Cache::Redis(breaker) = &cache else {
        panic!("a redis cache");
    };
    let k = key();
    cache.set(&k, b"v", Duration::from_secs(30)).await.unwrap();

    proxy.cut();
    let first = cache.get(&k).await;
    assert!(
        matches!(first, Err(CacheError::Timeout(_) | CacheError::Redis(_))),
        "the first call finds Redis gone: {first:?}"
    );
    assert!(breaker.is_open());
    for _ in 0..20 {
        assert!(
            matches!(cache.get(&k).await, Err(CacheError::Unavailable)),
            "refused without waiting on Redis"
        );
    }
    assert!(cache.delete(&k).await.is_err(), "deferred, not lost");

    proxy.restore();
    let back = eventually(Duration::from_secs(15), || async {
        (!breaker.is_open()).then_some(())
    })
    .await;
    assert!(back.is_some(), "the probe closed the breaker");
    assert_eq!(
        cache.get(&k).await.unwrap(),
        None,
        "the delete made during the outage was replayed before the cache was trusted"
    );
}

#[tokio::test]
async fn a_password_protected_redis_is_used_with_the_url_credentials() {
    let direct = ::redis::Client::open(format!("redis://{REDIS}")).unwrap();
    let mut admin = direct.get_multiplexed_async_connection().await.unwrap();
    let user = format!("gatehouse-test-{}", random_alphanumeric(6).to_lowercase());
    let password = random_alphanumeric(24);
    let _: () = ::redis::cmd("ACL")
        .arg("SETUSER")
        .arg(&user)
        .arg("on")
        .arg(format!(">{password}"))
        .arg("~gatehouse:*")
        .arg("+@all")
        .query_async(&mut admin)
        .await
        .unwrap();
    let cache = Cache::from_url(
        &format!("redis://{user}:{password}@{REDIS}"),
        Duration::from_millis(500),
    )
    .unwrap();
    let k = key();
    cache.set(&k, b"v", Duration::from_secs(5)).await.unwrap();
    assert_eq!(cache.get(&k).await.unwrap().as_deref(), Some(&b"v"[..]));
    let wrong = Cache::from_url(
        &format!("redis://{user}:not-{password}@{REDIS}"),
        Duration::from_millis(500),
    )
    .unwrap();
    assert!(wrong.get(&k).await.is_err(), "a wrong password is refused");
    let _: () = ::redis::cmd("ACL")
        .arg("DELUSER")
        .arg(&user)
        .query_async(&mut admin)
        .await
        .unwrap();
}
