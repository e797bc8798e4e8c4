//! Distributed mode: identity, session and the gateway as three processes of the `gatehouse`
//! binary, on PostgreSQL, Redis and RabbitMQ, with one sign-up / sign-in / get-session through
//! the gateway.

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

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Process {
    name: &'static str,
    child: Child,
    log: std::path::PathBuf,
}

impl Process {
    fn spawn(name: &'static str, envs: &[(&str, String)]) -> Process {
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

    fn log(&self) -> String {
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

    // Graceful shutdown: SIGTERM, and every process exits cleanly.
    for process in &mut processes {
        stop(process).await;
    }
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
