//! Test support shared by every crate's tests (behind the `testing` feature, enabled only in
//! dev-dependencies): fresh databases on both backends that clean up after themselves, a schema
//! parity check between the two migration sets, and a TCP proxy that can cut a connection to
//! Redis or RabbitMQ and restore it, so outage behaviour is tested against the real servers
//! (and counts what clients send, so round trips can be too).
//! Failing to reach PostgreSQL is a loud test failure, never a skip.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};

use sqlx::Connection;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::db::{Backend, Db, Migrations};

pub mod schema;

/// `TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`): a server where
/// tests may create databases.
pub fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A fresh, empty database on one backend, dropped (PostgreSQL) or deleted (SQLite) when the
/// guard goes out of scope, so a failed test leaves nothing behind either.
pub struct TestDb {
    pub backend: Backend,
    pub url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    Postgres { admin: String, name: String },
    Sqlite { dir: std::path::PathBuf },
}

impl TestDb {
    pub async fn new(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => {
                let dir =
                    std::env::temp_dir().join(format!("gatehouse-test-{}", crate::ids::new_id()));
                std::fs::create_dir_all(&dir)
                    .unwrap_or_else(|e| panic!("temp dir {}: {e}", dir.display()));
                let url = format!("sqlite://{}/test.sqlite", dir.display());
                Self {
                    backend,
                    url,
                    cleanup: Cleanup::Sqlite { dir },
                }
            }
            Backend::Postgres => {
                let admin = postgres_admin_url();
                let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap_or_else(|e| {
                    panic!(
                        "PostgreSQL is required for these tests and is not reachable at {admin}: {e}"
                    )
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
                Self {
                    backend,
                    url: format!("{base}/{name}"),
                    cleanup: Cleanup::Postgres { admin, name },
                }
            }
        }
    }

    /// The database opened with `migrations` (and kit's).
    pub async fn connect(&self, migrations: &Migrations) -> Db {
        Db::connect(&self.url, 5, migrations)
            .await
            .unwrap_or_else(|e| panic!("{:?} test database: {e}", self.backend))
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match &self.cleanup {
            Cleanup::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::Postgres { admin, name } => {
                let (admin, name) = (admin.clone(), name.clone());
                // Drop runs inside the test's runtime: drop the database from a thread of its own.
                let dropped = std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()?;
                    runtime.block_on(async {
                        let mut conn = sqlx::PgConnection::connect(&admin).await?;
                        sqlx::query(sqlx::AssertSqlSafe(format!(
                            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                        )))
                        .execute(&mut conn)
                        .await?;
                        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
                    })
                })
                .join();
                if let Ok(Err(error)) = dropped {
                    eprintln!("could not drop a test database: {error}");
                }
            }
        }
    }
}

/// The PostgreSQL `url` with its host and port replaced by `addr` (a [`ToggleProxy`]'s).
pub fn postgres_url_through(url: &str, addr: SocketAddr) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let (user, rest) = rest.split_once('@').unwrap_or(("postgres", rest));
    let path = rest.split_once('/').map_or("", |(_, path)| path);
    format!("{scheme}://{user}@{addr}/{path}")
}

/// The host and port the PostgreSQL `url` names (what a [`ToggleProxy`] forwards to).
pub fn postgres_target(url: &str) -> String {
    let rest = url.split_once('@').map_or(url, |(_, rest)| rest);
    rest.split_once('/')
        .map_or(rest, |(host, _)| host)
        .to_string()
}

/// A TCP forwarder to `target` that can be switched off (every open connection is cut and
/// new ones are closed at once) and on again. It counts the reads of what clients send: each
/// is one flush of a client's, so one round trip it started.
pub struct ToggleProxy {
    pub addr: SocketAddr,
    up: Arc<AtomicBool>,
    generation: watch::Sender<u64>,
    client_reads: Arc<AtomicUsize>,
}

/// A client's side of the proxy, counting the reads that brought bytes.
struct Counted {
    stream: TcpStream,
    reads: Arc<AtomicUsize>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.reads.fetch_add(1, Ordering::SeqCst);
        }
        polled
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
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
        let client_reads = Arc::new(AtomicUsize::new(0));
        let reads = client_reads.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if !accept_up.load(Ordering::Acquire) {
                    drop(client);
                    continue;
                }
                let mut client = Counted {
                    stream: client,
                    reads: reads.clone(),
                };
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
            client_reads,
        }
    }

    /// How many reads of what clients sent have been forwarded so far.
    pub fn client_reads(&self) -> usize {
        self.client_reads.load(Ordering::SeqCst)
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
