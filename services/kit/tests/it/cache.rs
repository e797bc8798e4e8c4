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
    let direct = redis(REDIS);
    let back = eventually(Duration::from_secs(15), || async {
        if breaker.is_open() {
            return None;
        }
        // Read straight from Redis the moment the breaker closes, before any call through
        // the cache could replay the delete itself.
        Some(direct.get(&k).await.unwrap())
    })
    .await;
    assert_eq!(
        back,
        Some(None),
        "the probe closed the breaker only after replaying the delete made during the outage"
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

/// A Redis of our own serving TLS only, with a certificate from a private CA made for the
/// test (Debian's redis-server is built with TLS; `openssl` makes the certificates).
struct TlsRedis {
    port: u16,
    dir: std::path::PathBuf,
    process: std::process::Child,
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn run(command: &mut std::process::Command) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} cannot run (is it installed?): {e}"));
    assert!(output.status.success(), "{command:?}: {output:?}");
}

fn tls_redis() -> TlsRedis {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("gatehouse-tls-redis-{}", random_alphanumeric(8)));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    run(Command::new("openssl").args([
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=test-ca",
        "-keyout",
        &path("ca.key"),
        "-out",
        &path("ca.pem"),
    ]));
    run(Command::new("openssl").args([
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-keyout",
        &path("server.key"),
        "-out",
        &path("server.csr"),
    ]));
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    run(Command::new("openssl").args([
        "x509",
        "-req",
        "-in",
        &path("server.csr"),
        "-CA",
        &path("ca.pem"),
        "-CAkey",
        &path("ca.key"),
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        &path("san.ext"),
        "-out",
        &path("server.pem"),
    ]));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let process = Command::new("redis-server")
        .args([
            "--port",
            "0",
            "--tls-port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--tls-cert-file",
            &path("server.pem"),
            "--tls-key-file",
            &path("server.key"),
            "--tls-ca-cert-file",
            &path("ca.pem"),
            "--tls-auth-clients",
            "no",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            &dir.display().to_string(),
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("redis-server is required for this test");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    TlsRedis { port, dir, process }
}

#[tokio::test]
async fn rediss_urls_verify_the_server_against_the_configured_ca() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let server = tls_redis();
    let url = format!("rediss://localhost:{}", server.port);
    let ca = std::fs::read(server.dir.join("ca.pem")).unwrap();
    let cache = Cache::connect(&url, Duration::from_secs(2), Some(ca)).unwrap();
    assert!(
        cache.describe().starts_with("rediss://"),
        "{}",
        cache.describe()
    );
    let k = key();
    cache
        .set(&k, b"over tls", Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(
        cache.get(&k).await.unwrap().as_deref(),
        Some(&b"over tls"[..])
    );
    let untrusting = Cache::connect(&url, Duration::from_secs(2), None).unwrap();
    assert!(
        untrusting.get(&k).await.is_err(),
        "a server whose certificate the system roots do not vouch for is refused"
    );
}
