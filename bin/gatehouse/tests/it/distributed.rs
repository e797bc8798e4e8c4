//! Distributed mode: identity, session and the gateway as three processes of the `gatehouse`
//! binary, on PostgreSQL, Redis and RabbitMQ, with one sign-up / sign-in / get-session and one
//! social sign-in (against the test OpenID provider) through the gateway.

use std::process::Stdio;
use std::time::Duration;

use crate::common::{PASSWORD, install_crypto, unique_email};
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_kit::outbox::{self, OutboxEvent};
use gatehouse_kit::testing::TestDb;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::events::v1::UserUpdated;
use serde_json::json;
use tokio::process::{Child, Command};

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) struct Process {
    name: &'static str,
    child: Child,
    log: std::path::PathBuf,
}

impl Process {
    pub(crate) fn spawn(name: &'static str, envs: &[(&str, String)]) -> Process {
        let log = std::env::temp_dir().join(format!(
            "gatehouse-{name}-{}.log",
            gatehouse_kit::ids::new_id()
        ));
        let file = std::fs::File::create(&log).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_gatehouse"));
        command
            .arg(name)
            .env_clear()
            .env("RUST_LOG", "info")
            .stdout(Stdio::from(file.try_clone().unwrap()))
            .stderr(Stdio::from(file))
            .kill_on_drop(true);
        for (key, value) in envs {
            command.env(key, value);
        }
        Process {
            name,
            child: command.spawn().expect("spawn gatehouse"),
            log,
        }
    }

    pub(crate) fn log(&self) -> String {
        format!(
            "--- {} ---\n{}",
            self.name,
            std::fs::read_to_string(&self.log).unwrap_or_default()
        )
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.log);
    }
}

#[tokio::test]
async fn three_processes_on_postgres_redis_and_rabbitmq() {
    install_crypto();
    let (identity_port, session_port, gateway_port) = (free_port(), free_port(), free_port());
    let (identity_db, session_db) = (
        TestDb::new(Backend::Postgres).await,
        TestDb::new(Backend::Postgres).await,
    );
    let identity_url = format!("http://127.0.0.1:{identity_port}");
    let base_url = format!("http://localhost:{gateway_port}");
    let provider = OidcProvider::start().await;
    let shared = [
        (
            "SERVICE_TOKEN",
            "distributed-test-service-token-0123456789".to_string(),
        ),
        (
            "AUTH_SECRET",
            "distributed-test-secret-0123456789abcdef".to_string(),
        ),
        ("CACHE_URL", "redis://127.0.0.1:6379".to_string()),
        (
            "BUS_URL",
            "amqp://guest:guest@127.0.0.1:5672/%2f".to_string(),
        ),
    ];
    let with = |extra: Vec<(&'static str, String)>| {
        shared.iter().cloned().chain(extra).collect::<Vec<_>>()
    };
    let session_env = with(vec![
        ("SESSION_LISTEN", format!("127.0.0.1:{session_port}")),
        ("SESSION_OPS_LISTEN", "127.0.0.1:0".to_string()),
        ("SESSION_DATABASE_URL", session_db.url.clone()),
        ("IDENTITY_URL", identity_url.clone()),
    ]);
    let mut processes = vec![
        Process::spawn(
            "identity",
            &with(vec![
                ("IDENTITY_LISTEN", format!("127.0.0.1:{identity_port}")),
                ("IDENTITY_OPS_LISTEN", "127.0.0.1:0".to_string()),
                ("IDENTITY_DATABASE_URL", identity_db.url.clone()),
                ("SOCIAL_PROVIDERS", provider.social_providers()),
            ]),
        ),
        Process::spawn("session", &session_env),
        Process::spawn(
            "gateway",
            &with(vec![
                ("GATEWAY_LISTEN", format!("127.0.0.1:{gateway_port}")),
                ("GATEWAY_OPS_LISTEN", "127.0.0.1:0".to_string()),
                ("BASE_URL", base_url.clone()),
                ("IDENTITY_URL", identity_url),
                ("SESSION_URL", format!("http://127.0.0.1:{session_port}")),
                ("RATE_LIMIT_SIGN_IN_MAX", "1000".to_string()),
            ]),
        ),
    ];
    let logs = |processes: &Vec<Process>| {
        processes
            .iter()
            .map(Process::log)
            .collect::<Vec<_>>()
            .join("\n")
    };

    let http = reqwest::Client::new();
    let api = format!("http://127.0.0.1:{gateway_port}/api/auth");
    let mut ready = false;
    for _ in 0..100 {
        if http
            .get(format!("{api}/ok"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "gateway did not start\n{}", logs(&processes));

    let email = unique_email();
    // The services may still be migrating: the first sign-up is retried while they come up.
    let mut signed_up = None;
    for _ in 0..50 {
        let reply = http
            .post(format!("{api}/sign-up/email"))
            .header("origin", &base_url)
            .json(&json!({"name": "Dee", "email": email, "password": PASSWORD}))
            .send()
            .await
            .unwrap();
        if reply.status() != 503 {
            signed_up = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let signed_up =
        signed_up.unwrap_or_else(|| panic!("services never came up\n{}", logs(&processes)));
    assert_eq!(signed_up.status(), 200, "{}", logs(&processes));

    let signed_in = http
        .post(format!("{api}/sign-in/email"))
        .header("origin", &base_url)
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 200);
    let cookie = signed_in.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let token = signed_in.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();

    let session: serde_json::Value = http
        .get(format!("{api}/get-session"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        session["session"]["token"],
        token.as_str(),
        "{}",
        logs(&processes)
    );
    assert_eq!(session["user"]["email"], email.as_str());

    // The session service cached it in the shared Redis.
    let mut redis = redis::Client::open("redis://127.0.0.1:6379")
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let cached: bool = redis::cmd("EXISTS")
        .arg(format!(
            "gatehouse:{}",
            gatehouse_session::session::cache::key(&token)
        ))
        .query_async(&mut redis)
        .await
        .unwrap();
    assert!(cached, "session cached in Redis");

    // A change to the user reaches the next get-session through RabbitMQ, even though the
    // session service (the consumer) is down when the event is published.
    stop(&mut processes[1]).await;
    let identity = Db::connect(&identity_db.url, 2, &gatehouse_identity::MIGRATIONS)
        .await
        .unwrap();
    let user_id = session["user"]["id"].as_str().unwrap().to_string();
    // What update-user does: the change and its event in one transaction.
    let mut tx = identity.begin().await.unwrap();
    query("UPDATE users SET name = $1 WHERE id = $2")
        .bind("Renamed")
        .bind(user_id.as_str())
        .execute(&mut tx)
        .await
        .unwrap();
    tx.enqueue(&OutboxEvent::new(&UserUpdated {
        user_id: user_id.clone(),
        ..Default::default()
    }))
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let published = eventually(Duration::from_secs(10), || async {
        (outbox::pending(&identity).await.ok() == Some(0)).then_some(())
    })
    .await;
    assert!(
        published.is_some(),
        "identity published user.updated\n{}",
        logs(&processes)
    );
    processes[1] = Process::spawn("session", &session_env);
    let renamed = eventually(Duration::from_secs(20), || async {
        let reply = http
            .get(format!("{api}/get-session"))
            .header("cookie", &cookie)
            .send()
            .await
            .ok()?;
        let body: serde_json::Value = reply.json().await.ok()?;
        (body["user"]["name"] == "Renamed").then_some(())
    })
    .await;
    assert!(
        renamed.is_some(),
        "the cached session was evicted once the consumer came back\n{}",
        logs(&processes)
    );

    // A social sign-in across the processes: the gateway keeps the state cookie, identity
    // talks to the provider and keeps the tokens, the session service makes the session.
    let social_email = unique_email();
    let started = http
        .post(format!("{api}/sign-in/social"))
        .header("origin", &base_url)
        .json(
            &json!({"provider": "test-oidc", "callbackURL": "/", "disableRedirect": true,
            "loginHint": social_email}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), 200, "{}", logs(&processes));
    let state_cookie = first_cookie(&started);
    let authorize: serde_json::Value = started.json().await.unwrap();
    let callback = follow_provider(
        authorize["url"].as_str().unwrap(),
        &format!("{base_url}/api/auth/callback/"),
    )
    .await;
    let back = no_redirects()
        .get(callback.replace(&base_url, &format!("http://127.0.0.1:{gateway_port}")))
        .header("cookie", &state_cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(back.status(), 302, "{}", logs(&processes));
    let session_cookie = back
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|c| c.to_str().ok())
        .find(|c| c.starts_with("better-auth.session_token="))
        .map(|c| c.split(';').next().unwrap_or_default().to_string())
        .unwrap_or_else(|| panic!("no session from the callback\n{}", logs(&processes)));
    let social_session: serde_json::Value = http
        .get(format!("{api}/get-session"))
        .header("cookie", &session_cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(social_session["user"]["email"], social_email.as_str());
    let token: serde_json::Value = http
        .post(format!("{api}/get-access-token"))
        .header("origin", &base_url)
        .header("cookie", &session_cookie)
        .json(&json!({"providerId": "test-oidc"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        token["accessToken"].as_str().is_some_and(|t| !t.is_empty()),
        "{token}\n{}",
        logs(&processes)
    );

    // Graceful shutdown: SIGTERM, and every process exits cleanly.
    for process in &mut processes {
        stop(process).await;
    }
}

/// The test OpenID provider (`tests/oidc-provider`) on a free port, while held.
struct OidcProvider {
    _child: Child,
    port: u16,
}

impl OidcProvider {
    async fn start() -> Self {
        let port = free_port();
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/oidc-provider/server.mjs"
        );
        let child = Command::new("node")
            .arg(script)
            .env("OIDC_PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the OpenID provider (node {script}): {e}"));
        let health = format!("http://127.0.0.1:{port}/health");
        let up = eventually(Duration::from_secs(20), || async {
            reqwest::get(&health)
                .await
                .ok()?
                .status()
                .is_success()
                .then_some(())
        })
        .await;
        assert!(
            up.is_some(),
            "the OpenID provider did not start (npm ci --prefix tests/oidc-provider)"
        );
        Self {
            _child: child,
            port,
        }
    }

    fn social_providers(&self) -> String {
        json!({"test-oidc": {"clientId": "gatehouse-test", "clientSecret": "gatehouse-test-secret",
            "discoveryUrl": format!("http://127.0.0.1:{}/.well-known/openid-configuration", self.port)}})
        .to_string()
    }
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A response's first cookie, as a `cookie` header value.
fn first_cookie(response: &reqwest::Response) -> String {
    response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

/// Follows the provider's redirects (with its own cookies) until one goes to `until`.
async fn follow_provider(url: &str, until: &str) -> String {
    let client = no_redirects();
    let mut cookies: Vec<String> = Vec::new();
    let mut url = url::Url::parse(url).unwrap();
    for _ in 0..20 {
        if url.as_str().starts_with(until) {
            return url.to_string();
        }
        let response = client
            .get(url.clone())
            .header("cookie", cookies.join("; "))
            .send()
            .await
            .unwrap();
        for value in response.headers().get_all("set-cookie") {
            let pair = value
                .to_str()
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .to_string();
            let name = pair.split('=').next().unwrap_or_default().to_string();
            cookies.retain(|c| !c.starts_with(&format!("{name}=")));
            cookies.push(pair);
        }
        let location = response.headers()["location"].to_str().unwrap().to_string();
        url = url.join(&location).unwrap();
    }
    panic!("the provider redirected too many times");
}

/// SIGTERM, then the process must exit cleanly within 10 s.
async fn stop(process: &mut Process) {
    let pid = process.child.id().expect("running").to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = tokio::time::timeout(Duration::from_secs(10), process.child.wait()).await;
    let status = status
        .unwrap_or_else(|_| panic!("{} did not stop on SIGTERM", process.name))
        .unwrap();
    assert!(
        status.success(),
        "{} exited with {status}\n{}",
        process.name,
        process.log()
    );
}

/// `gatehouse migrate <part>` (the pods' init step) applies kit's and the service's migrations
/// and exits; a second run finds nothing to do; a part without a database is refused.
#[tokio::test]
async fn migrate_applies_a_services_migrations_and_exits() {
    let database = TestDb::new(Backend::Postgres).await;
    let migrate = |part: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
            .args(["migrate", part])
            .env_clear()
            .env("RUST_LOG", "warn")
            .env("IDENTITY_DATABASE_URL", &database.url)
            .output()
            .unwrap()
    };
    let expected = gatehouse_identity::MIGRATIONS.postgres.iter().count()
        + gatehouse_kit::db::KIT_MIGRATIONS.postgres.iter().count();
    let applied = || async {
        use sqlx::Connection as _;
        let mut conn = sqlx::PgConnection::connect(&database.url).await.unwrap();
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations WHERE success")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        count as usize
    };

    let first = migrate("identity");
    assert!(first.status.success(), "{first:?}");
    assert_eq!(applied().await, expected);
    let again = migrate("identity");
    assert!(again.status.success(), "{again:?}");
    assert_eq!(applied().await, expected, "nothing applied twice");

    let gateway = migrate("gateway");
    assert_eq!(
        gateway.status.code(),
        Some(2),
        "the gateway has no database"
    );
    let unreachable = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["migrate", "session"])
        .env_clear()
        .env(
            "SESSION_DATABASE_URL",
            "postgres://postgres@127.0.0.1:1/none",
        )
        .output()
        .unwrap();
    assert!(!unreachable.status.success());
    assert!(
        String::from_utf8_lossy(&unreachable.stderr).contains("session: database"),
        "{unreachable:?}"
    );
}
