//! When the key set is fetched, and what a slow, hung or dead JWKS endpoint does to verification.

mod support;

use std::time::{Duration, Instant};

use gatehouse_jwks::{Settings, VerifyError};
use serde_json::Value;
use support::{Jwks, TestKey, claims, expect, settings, within};

const SECOND: Duration = Duration::from_secs(1);

#[tokio::test]
async fn first_use_fetches_and_a_known_kid_is_served_from_the_cache() {
    let key = TestKey::ed25519("a");
    let jwks = Jwks::start(&[&key]).await;
    let keys = jwks.key_set(settings());
    assert_eq!(jwks.fetches(), 0, "nothing is fetched before first use");
    for _ in 0..5 {
        keys.verify::<Value>(&key.sign(&claims()), &expect())
            .await
            .expect("valid");
    }
    // A clone shares the cache.
    keys.clone()
        .verify::<Value>(&key.sign(&claims()), &expect())
        .await
        .expect("valid");
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn an_unknown_kid_refetches_once_for_all_concurrent_callers() {
    let (old, new) = (TestKey::ed25519("old"), TestKey::es256("new"));
    let jwks = Jwks::start(&[&old]).await;
    let keys = jwks.key_set(settings());
    keys.verify::<Value>(&old.sign(&claims()), &expect())
        .await
        .expect("valid");
    // Rotation: the provider now signs with a key the cache has not seen. The delay makes
    // every caller arrive while the one fetch is under way.
    tokio::time::sleep(Duration::from_millis(250)).await;
    jwks.set_keys(&[&old, &new]);
    jwks.set_delay(Duration::from_millis(300));
    let token = new.sign(&claims());
    let callers: Vec<_> = (0..20)
        .map(|_| {
            let (keys, token) = (keys.clone(), token.clone());
            tokio::spawn(async move { keys.verify::<Value>(&token, &expect()).await })
        })
        .collect();
    for caller in callers {
        within(10 * SECOND, caller)
            .await
            .expect("task")
            .expect("valid after the refetch");
    }
    assert_eq!(jwks.fetches(), 2, "one initial fetch, one shared refetch");
}

#[tokio::test]
async fn an_unknown_kid_within_the_interval_is_refused_without_a_request() {
    let (known, unknown) = (TestKey::ed25519("known"), TestKey::ed25519("unknown"));
    let jwks = Jwks::start(&[&known]).await;
    let keys = jwks.key_set(Settings {
        min_refetch_interval: 3600 * SECOND,
        ..settings()
    });
    keys.verify::<Value>(&known.sign(&claims()), &expect())
        .await
        .expect("valid");
    jwks.set_keys(&[&known, &unknown]);
    for _ in 0..10 {
        let refused = keys
            .verify::<Value>(&unknown.sign(&claims()), &expect())
            .await;
        assert!(
            matches!(refused, Err(VerifyError::UnknownKey)),
            "{refused:?}"
        );
    }
    assert_eq!(
        jwks.fetches(),
        1,
        "made-up kids cannot make the verifier hammer the provider"
    );
}

#[tokio::test]
async fn an_unknown_kid_refetches_again_once_the_interval_has_passed() {
    let (known, later) = (TestKey::ed25519("known"), TestKey::es256("later"));
    let jwks = Jwks::start(&[&known]).await;
    let keys = jwks.key_set(settings());
    keys.verify::<Value>(&known.sign(&claims()), &expect())
        .await
        .expect("valid");
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Refetched, still unknown.
    let refused = keys
        .verify::<Value>(&later.sign(&claims()), &expect())
        .await;
    assert!(
        matches!(refused, Err(VerifyError::UnknownKey)),
        "{refused:?}"
    );
    assert_eq!(jwks.fetches(), 2);
    jwks.set_keys(&[&known, &later]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    keys.verify::<Value>(&later.sign(&claims()), &expect())
        .await
        .expect("valid");
    assert_eq!(jwks.fetches(), 3);
}

#[tokio::test]
async fn a_hung_endpoint_never_delays_a_cached_kid() {
    let (known, unknown) = (TestKey::rs256("known"), TestKey::ed25519("unknown"));
    let jwks = Jwks::start(&[&known]).await;
    let keys = jwks.key_set(Settings {
        fetch_timeout: 30 * SECOND,
        max_age: Duration::from_millis(100),
        ..settings()
    });
    // Signed once: RSA signing is slow in an unoptimised build and must not eat the time limits.
    let token = known.sign(&claims());
    keys.verify::<Value>(&token, &expect())
        .await
        .expect("valid");
    jwks.set_delay(Duration::from_secs(10));
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The set is old: this starts a background refresh that hangs, and is answered at once.
    let started = Instant::now();
    within(SECOND, keys.verify::<Value>(&token, &expect()))
        .await
        .expect("valid from the cache");
    jwks.wait_for_fetches(2).await;
    // While the refresh hangs, cached kids are still answered at once, and no second refresh
    // starts; an unknown kid meanwhile waits for that same refresh.
    for _ in 0..5 {
        within(SECOND, keys.verify::<Value>(&token, &expect()))
            .await
            .expect("valid from the cache");
    }
    assert!(started.elapsed() < 3 * SECOND);
    let waiting = tokio::spawn({
        let (keys, token) = (keys.clone(), unknown.sign(&claims()));
        async move { keys.verify::<Value>(&token, &expect()).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "an unknown kid waits for the refresh under way"
    );
    assert_eq!(jwks.fetches(), 2, "one refresh at a time");
    waiting.abort();
}

#[tokio::test]
async fn an_unknown_kid_waits_at_most_the_fetch_timeout() {
    let (known, unknown) = (TestKey::es256("known"), TestKey::ed25519("unknown"));
    let jwks = Jwks::start(&[&known]).await;
    let keys = jwks.key_set(Settings {
        fetch_timeout: Duration::from_millis(300),
        ..settings()
    });
    keys.verify::<Value>(&known.sign(&claims()), &expect())
        .await
        .expect("valid");
    jwks.set_delay(Duration::from_secs(10));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let refused = within(
        5 * SECOND,
        keys.verify::<Value>(&unknown.sign(&claims()), &expect()),
    )
    .await;
    assert!(
        matches!(refused, Err(VerifyError::KeySetUnavailable(_))),
        "{refused:?}"
    );
    assert!(
        started.elapsed() < 3 * SECOND,
        "took {:?}",
        started.elapsed()
    );
    // The known kid was not affected, during or after.
    within(
        SECOND,
        keys.verify::<Value>(&known.sign(&claims()), &expect()),
    )
    .await
    .expect("valid");
}

#[tokio::test]
async fn a_hung_endpoint_at_first_use_times_out() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    jwks.set_delay(Duration::from_secs(10));
    let keys = jwks.key_set(Settings {
        fetch_timeout: Duration::from_millis(300),
        ..settings()
    });
    let refused = within(
        5 * SECOND,
        keys.verify::<Value>(&key.sign(&claims()), &expect()),
    )
    .await;
    assert!(
        matches!(refused, Err(VerifyError::KeySetUnavailable(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn an_endpoint_down_at_first_use_is_unavailable_and_then_recovers() {
    let key = TestKey::ed25519("k");
    // A port nothing listens on (yet): connection refused.
    let addr = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr")
    };
    let url = format!("http://{addr}/jwks").parse().expect("url");
    let keys = gatehouse_jwks::KeySet::new(url, support::client(), settings());
    let token = key.sign(&claims());
    let refused = within(5 * SECOND, keys.verify::<Value>(&token, &expect())).await;
    assert!(
        matches!(refused, Err(VerifyError::KeySetUnavailable(_))),
        "{refused:?}"
    );

    let jwks = Jwks::start_on(addr, &[&key]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    within(5 * SECOND, keys.verify::<Value>(&token, &expect()))
        .await
        .expect("recovered");
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn a_failing_endpoint_is_retried_at_the_interval_and_then_recovers() {
    let key = TestKey::ed25519("k");
    let jwks = Jwks::start(&[&key]).await;
    jwks.set_up(false);
    let keys = jwks.key_set(Settings {
        min_refetch_interval: Duration::from_millis(500),
        ..settings()
    });
    let token = key.sign(&claims());
    for _ in 0..3 {
        let refused = keys.verify::<Value>(&token, &expect()).await;
        match refused {
            Err(VerifyError::KeySetUnavailable(reason)) => {
                assert!(reason.contains("503"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        jwks.fetches(),
        1,
        "failures are retried at the interval, not per request"
    );
    jwks.set_up(true);
    tokio::time::sleep(Duration::from_millis(600)).await;
    keys.verify::<Value>(&token, &expect())
        .await
        .expect("recovered");
    assert_eq!(jwks.fetches(), 2);
}

#[tokio::test]
async fn a_failed_refresh_keeps_the_cached_keys() {
    let key = TestKey::es256("k");
    let jwks = Jwks::start(&[&key]).await;
    let keys = jwks.key_set(Settings {
        max_age: Duration::from_millis(100),
        ..settings()
    });
    keys.verify::<Value>(&key.sign(&claims()), &expect())
        .await
        .expect("valid");
    jwks.set_up(false);
    tokio::time::sleep(Duration::from_millis(300)).await;
    keys.verify::<Value>(&key.sign(&claims()), &expect())
        .await
        .expect("valid, refresh started");
    jwks.wait_for_fetches(2).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    keys.verify::<Value>(&key.sign(&claims()), &expect())
        .await
        .expect("still valid");
}
