//! Test support shared by every crate's tests: fresh databases on both backends and a TCP
//! proxy that can cut a connection to Redis or RabbitMQ and restore it, so outage behaviour is
//! tested against the real servers. Failing to reach PostgreSQL is a loud test failure, never
//! a skip.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::Connection;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::db::Backend;

/// `TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`): a server where
/// tests may create databases.
pub fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A new, empty PostgreSQL database (named `gh_test_*`); returns its URL.
pub async fn fresh_postgres_url() -> String {
    let admin = postgres_admin_url();
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .unwrap_or_else(|e| {
            panic!("PostgreSQL is required for these tests and is not reachable at {admin}: {e}")
        });
    let name = format!(
        "gh_test_{}",
        crate::ids::random_alphanumeric(12).to_lowercase()
    );
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    format!("{base}/{name}")
}

/// A new SQLite file in a fresh temporary directory; returns its URL.
pub fn fresh_sqlite_url() -> String {
    let dir = std::env::temp_dir().join(format!("gatehouse-test-{}", crate::ids::new_id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("temp dir {}: {e}", dir.display()));
    format!("sqlite://{}/test.sqlite", dir.display())
}

/// One fresh database per backend: every storage suite runs on both.
pub async fn fresh_databases() -> Vec<(Backend, String)> {
    vec![
        (Backend::Sqlite, fresh_sqlite_url()),
        (Backend::Postgres, fresh_postgres_url().await),
    ]
}

/// A TCP forwarder to `target` that can be switched off (every open connection is cut and
/// new ones are closed at once) and on again.
pub struct ToggleProxy {
    pub addr: SocketAddr,
    up: Arc<AtomicBool>,
    generation: watch::Sender<u64>,
}

impl ToggleProxy {
    pub async fn start(target: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("proxy listen: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("proxy address: {e}"));
        let up = Arc::new(AtomicBool::new(true));
        let (generation, _) = watch::channel(0u64);
        let target = target.to_string();
        let accept_up = up.clone();
        let cuts = generation.clone();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !accept_up.load(Ordering::Acquire) {
                    drop(client);
                    continue;
                }
                let target = target.clone();
                let mut cut = cuts.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Self {
            addr,
            up,
            generation,
        }
    }

    /// Cuts every connection and refuses new ones until [`restore`](Self::restore).
    pub fn cut(&self) {
        self.up.store(false, Ordering::Release);
        self.generation.send_modify(|g| *g += 1);
    }

    pub fn restore(&self) {
        self.up.store(true, Ordering::Release);
    }
}

/// Polls `check` every 50 ms until it returns `Some` or `timeout` passes.
pub async fn eventually<T, F, Fut>(timeout: std::time::Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return Some(value);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
