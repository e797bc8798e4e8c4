//! Storage: one pool type per backend, chosen by URL, with per-backend migrations applied at
//! start. Each store writes its SQL once and runs it on whichever pool it holds through
//! [`with_db!`](crate::with_db), so rows decode with native types on both backends (timestamptz
//! and boolean on PostgreSQL, SQLite's own on SQLite).

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("unsupported database URL {0:?}: expected sqlite:// or postgres://")]
    UnsupportedUrl(String),
    #[error("cannot open the database: {0}")]
    Connect(#[source] sqlx::Error),
    #[error("cannot create the database directory {path}: {source}")]
    Directory {
        path: String,
        source: std::io::Error,
    },
    #[error("migrations failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A service's migrations, one set per backend.
pub struct Migrations {
    pub sqlite: &'static Migrator,
    pub postgres: &'static Migrator,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs one expression against whichever pool `db` holds: `with_db!(&db, pool => query.fetch_one(pool).await)`.
/// The expression is compiled once per backend, so queries must bind values both drivers encode.
#[macro_export]
macro_rules! with_db {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::db::Db::Sqlite($pool) => $body,
            $crate::db::Db::Postgres($pool) => $body,
        }
    };
}

impl Db {
    /// Opens the pool for `url` and applies the service's migrations.
    pub async fn connect(
        url: &str,
        max_connections: u32,
        migrations: &Migrations,
    ) -> Result<Self, DbError> {
        let db = if url.starts_with("sqlite:") {
            Db::Sqlite(open_sqlite(url, max_connections).await?)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Db::Postgres(
                PgPoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(Duration::from_secs(5))
                    .connect(url)
                    .await
                    .map_err(DbError::Connect)?,
            )
        } else {
            return Err(DbError::UnsupportedUrl(crate::config::redact_url(url)));
        };
        match &db {
            Db::Sqlite(pool) => migrations.sqlite.run(pool).await?,
            Db::Postgres(pool) => migrations.postgres.run(pool).await?,
        }
        Ok(db)
    }

    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(_) => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    pub async fn close(&self) {
        with_db!(self, pool => pool.close().await)
    }
}

async fn open_sqlite(url: &str, max_connections: u32) -> Result<SqlitePool, DbError> {
    let options = SqliteConnectOptions::from_str(url)
        .map_err(DbError::Connect)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(Duration::from_secs(5))
        .foreign_keys(true);
    let path = options.get_filename();
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| DbError::Directory {
            path: parent.display().to_string(),
            source,
        })?;
    }
    SqlitePoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        .connect_with(options)
        .await
        .map_err(DbError::Connect)
}
