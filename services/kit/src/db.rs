//! Storage that stores never see the backend of. A [`Db`] is a SQLite or PostgreSQL pool chosen
//! by URL; a store writes each statement once and runs it through [`Query`]:
//!
//! ```ignore
//! let user: Option<User> = query("SELECT … FROM users WHERE id = $1").bind(id).fetch_optional(&db).await?;
//! let mut tx = db.begin().await?;
//! query("INSERT …").bind(…).execute(&mut tx).await?;
//! tx.enqueue(&event).await?;   // the outbox row commits with the change
//! tx.commit().await?;          // and the relay is woken
//! ```
//!
//! Values are bound through sea-query-sqlx to the pool in hand, so rows decode with native types
//! on both backends (timestamptz and boolean on PostgreSQL, SQLite's own on SQLite). Dynamic
//! statements (filters, sorting, paging) are built with sea-query and rendered per dialect by
//! [`Db::build`]. kit's own migrations (the outbox) run with every service's.

use std::borrow::Cow;
use std::str::FromStr;
use std::time::Duration;

use sea_query::{
    PostgresQueryBuilder, QueryStatementBuilder, SelectStatement, SqliteQueryBuilder, Value, Values,
};
use sea_query_sqlx::SqlxValues;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnection, PgPool, PgPoolOptions, PgRow};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteRow,
};
use sqlx::{AssertSqlSafe, FromRow};

use crate::outbox::event::{OutboxEvent, OutboxSignal, sealed};
use crate::sealing::SealingKey;

pub use sea_query;

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
    #[error("a unique constraint was violated: {0}")]
    UniqueViolation(#[source] sqlx::Error),
    #[error("database: {0}")]
    Query(#[source] sqlx::Error),
}

impl DbError {
    /// A unique violation of the constraint or index whose name (PostgreSQL) or column
    /// (SQLite: "UNIQUE constraint failed: users.username") contains `name`.
    pub fn is_unique_violation_of(&self, name: &str) -> bool {
        match self {
            DbError::UniqueViolation(sqlx::Error::Database(e)) => {
                e.constraint().is_some_and(|c| c.contains(name)) || e.message().contains(name)
            }
            _ => false,
        }
    }
}

impl DbError {
    /// Whether the database could not be reached, or is restarting or too busy to take the
    /// statement: it may well work a moment later. Such a failure is the caller's 503, never a
    /// 500 and never a refusal of what they asked (a sign-in whose session could not be
    /// written is not a wrong password).
    pub fn is_unavailable(&self) -> bool {
        let error = match self {
            DbError::Connect(_) => return true,
            DbError::Query(error) => error,
            _ => return false,
        };
        match error {
            // A conversation with the server that broke down (a connection closed during its
            // handshake reads as an unexpected answer), not a statement that failed.
            sqlx::Error::Io(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed
            | sqlx::Error::BeginFailed => true,
            sqlx::Error::Database(e) => e.code().is_some_and(|code| {
                // PostgreSQL: connection exceptions (08…), the server shutting down or
                // starting (57P01–57P03), too many connections (53300). SQLite: busy, locked.
                code.starts_with("08")
                    || ["57P01", "57P02", "57P03", "53300", "5", "6"].contains(&code.as_ref())
            }),
            _ => false,
        }
    }

    /// What the caller is answered when a statement fails: 503 while the database is
    /// unavailable ([`DbError::is_unavailable`]), else 500.
    pub fn answer(&self) -> crate::errors::ErrorCode {
        self.answer_or(crate::errors::base::INTERNAL_SERVER_ERROR)
    }

    /// 503 while the database is unavailable, else `code` (better-auth's answer when its
    /// adapter fails, such as `FAILED_TO_CREATE_USER`).
    pub fn answer_or(&self, code: crate::errors::ErrorCode) -> crate::errors::ErrorCode {
        if self.is_unavailable() {
            crate::errors::base::SERVICE_UNAVAILABLE
        } else {
            code
        }
    }
}

impl From<sqlx::Error> for DbError {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            sqlx::Error::Database(e) if e.is_unique_violation() => DbError::UniqueViolation(error),
            _ => DbError::Query(error),
        }
    }
}

/// A service's migrations, one set per backend.
pub struct Migrations {
    pub sqlite: &'static Migrator,
    pub postgres: &'static Migrator,
}

/// A service's [`Migrations`]: the `migrations/sqlite` and `migrations/postgres` folders of
/// the crate that invokes it, embedded at build time.
#[macro_export]
macro_rules! service_migrations {
    () => {{
        static SQLITE: $crate::sqlx::migrate::Migrator =
            $crate::sqlx::migrate!("./migrations/sqlite");
        static POSTGRES: $crate::sqlx::migrate::Migrator =
            $crate::sqlx::migrate!("./migrations/postgres");
        $crate::db::Migrations {
            sqlite: &SQLITE,
            postgres: &POSTGRES,
        }
    }};
}

static KIT_SQLITE: Migrator = sqlx::migrate!("./migrations/sqlite");
static KIT_POSTGRES: Migrator = sqlx::migrate!("./migrations/postgres");

/// kit's own tables (the outbox), applied with every service's migrations.
pub const KIT_MIGRATIONS: Migrations = Migrations {
    sqlite: &KIT_SQLITE,
    postgres: &KIT_POSTGRES,
};

/// The two migration sets as one migrator (kit's versions are 9000 and up).
fn combined(kit: &Migrator, service: &Migrator) -> Migrator {
    Migrator::with_migrations(kit.iter().chain(service.iter()).cloned().collect())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A connection pool with its migrations applied, the signal that wakes the outbox relay, and
/// the key that seals the outbox's secret-bearing events ([`crate::sealing`]).
#[derive(Clone, Debug)]
pub struct Db {
    pool: Pool,
    outbox: OutboxSignal,
    sealing: Option<SealingKey>,
}

impl Db {
    /// Opens the pool for `url` and applies kit's and the service's migrations.
    pub async fn connect(
        url: &str,
        max_connections: u32,
        migrations: &Migrations,
    ) -> Result<Self, DbError> {
        let pool = if url.starts_with("sqlite:") {
            Pool::Sqlite(open_sqlite(url, max_connections).await?)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Pool::Postgres(open_postgres(url, max_connections).await?)
        } else {
            return Err(DbError::UnsupportedUrl(crate::redact::redact_url(url)));
        };
        match &pool {
            Pool::Sqlite(pool) => combined(&KIT_SQLITE, migrations.sqlite).run(pool).await?,
            Pool::Postgres(pool) => {
                combined(&KIT_POSTGRES, migrations.postgres)
                    .run(pool)
                    .await?
            }
        }
        Ok(Self {
            pool,
            outbox: OutboxSignal::default(),
            sealing: None,
        })
    }

    /// This pool, sealing the events of `gatehouse_proto::events::SEALED_TOPICS` it enqueues
    /// (and opening what its consumers receive) with `key`. Every service's database has it
    /// ([`crate::service::serve`]); without it such events are written as they are.
    pub fn with_sealing(self, key: SealingKey) -> Self {
        Self {
            sealing: Some(key),
            ..self
        }
    }

    /// The deployment's sealing key, when this pool has one.
    pub fn sealing(&self) -> Option<&SealingKey> {
        self.sealing.as_ref()
    }

    /// Which backend this is. Stores never ask; kit's introspection and tests do.
    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// Starts a transaction. Events enqueued in it are published after it commits.
    ///
    /// On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`): a deferred transaction
    /// that reads and then writes fails with "database is locked" when another connection
    /// wrote in between, without waiting (the busy timeout cannot help a lock upgrade), while
    /// an immediate one waits its turn.
    ///
    /// A caller that goes away while it begins (a task aborted, a timeout) leaves nothing
    /// behind: sqlx 0.9.0's PostgreSQL `BEGIN` is not cancel-safe — dropped during its round
    /// trip, it returns the connection to the pool inside a transaction nothing will end,
    /// where the next borrowers' statements run uncommitted and hold their locks
    /// (launchbadge/sqlx#4393). So the `BEGIN` runs in a task of its own, which finishes it
    /// whatever happens to the caller, and rolls back a transaction nobody took at once (a
    /// dropped sqlx transaction only queues its rollback for the connection's next use,
    /// leaving it idle in a transaction meanwhile).
    pub async fn begin(&self) -> Result<Tx, DbError> {
        let inner = match &self.pool {
            Pool::Sqlite(pool) => TxInner::Sqlite(pool.begin_with("BEGIN IMMEDIATE").await?),
            Pool::Postgres(pool) => {
                let pool = pool.clone();
                let (hand_over, taken) = tokio::sync::oneshot::channel();
                tokio::spawn(async move {
                    if let Err(Ok(abandoned)) = hand_over.send(pool.begin().await)
                        && let Err(error) = abandoned.rollback().await
                    {
                        tracing::warn!(%error, "rolling back an abandoned transaction failed");
                    }
                });
                let begun = taken.await.map_err(|_| {
                    // The task ended without an answer: the runtime is shutting down.
                    tracing::error!("beginning a transaction failed: its task ended");
                    DbError::Query(sqlx::Error::BeginFailed)
                })?;
                TxInner::Postgres(begun?)
            }
        };
        Ok(Tx {
            inner,
            outbox: self.outbox.clone(),
            sealing: self.sealing.clone(),
            enqueued: false,
        })
    }

    /// Renders a sea-query statement in this backend's dialect, its values bound as `$n`.
    pub fn build(&self, statement: &impl QueryStatementBuilder) -> Query {
        build(self.backend(), statement)
    }

    /// Runs `insert` — an `INSERT … ON CONFLICT DO NOTHING` without `RETURNING` — and writes
    /// `event` to the outbox only if it inserted a row, atomically; returns whether it did.
    /// On PostgreSQL it is one statement (the INSERT as a data-modifying CTE, the outbox row
    /// selected from what it returned): one round trip where a transaction takes four, for a
    /// write that must be quick (an intake acknowledged only once stored). SQLite, which has
    /// no data-modifying CTEs, runs the two in a transaction.
    pub async fn insert_with_event(
        &self,
        insert: Query,
        event: &OutboxEvent,
    ) -> Result<bool, DbError> {
        let event = &*sealed(event, self.sealing.as_ref());
        match self.backend() {
            Backend::Postgres => {
                let n = insert.args.len();
                let sql = format!(
                    "WITH inserted AS ({} RETURNING 1) INSERT INTO outbox ({}) \
                     SELECT ${}, ${}, ${}, ${}, ${}, ${} FROM inserted",
                    insert.sql,
                    OUTBOX_COLUMNS,
                    n + 1,
                    n + 2,
                    n + 3,
                    n + 4,
                    n + 5,
                    n + 5,
                );
                let combined = bind_outbox_row(
                    Query {
                        sql: Cow::Owned(sql),
                        args: insert.args,
                    },
                    event,
                );
                let inserted = combined.execute(self).await? > 0;
                if inserted {
                    self.outbox.notify();
                }
                Ok(inserted)
            }
            Backend::Sqlite => {
                let mut tx = self.begin().await?;
                let inserted = insert.execute(&mut tx).await? > 0;
                if inserted {
                    tx.enqueue(event).await?;
                }
                tx.commit().await?;
                Ok(inserted)
            }
        }
    }

    /// Renders a SELECT that has no LIMIT or OFFSET of its own as one page of it, the LIMIT
    /// written into the statement and the offset bound. Both backends plan with a bound
    /// LIMIT's value: SQLite prepares a statement with `LIMIT ?` again on every run, and
    /// PostgreSQL's generic plan for `LIMIT $n` assumes a tenth of the table, so it plans
    /// the statement anew on every run (a third of a millisecond for a page of users)
    /// instead of reusing its plan. A page size takes few values, an offset many, so the
    /// offset stays a parameter (written in, each offset would be a statement of its own).
    pub fn build_page(
        &self,
        statement: &SelectStatement,
        limit: Option<u64>,
        offset: Option<u64>,
    ) -> Query {
        let mut query = self.build(statement);
        if limit.is_none() && offset.is_none() {
            return query;
        }
        // Both backends take a LIMIT before an OFFSET only; "no limit" is the largest one.
        let limit = limit.map_or(i64::MAX, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let offset = offset.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut sql = query.sql.into_owned();
        sql.push_str(" LIMIT ");
        sql.push_str(&limit.to_string());
        if let Some(offset) = offset {
            query.args.push(Value::BigInt(Some(offset)));
            sql.push_str(" OFFSET ");
            match self.backend() {
                Backend::Sqlite => sql.push('?'),
                Backend::Postgres => sql.push_str(&format!("${}", query.args.len())),
            }
        }
        query.sql = Cow::Owned(sql);
        query
    }

    /// Wakes this database's outbox relay (a transaction that enqueued events does it itself).
    pub fn outbox_signal(&self) -> &OutboxSignal {
        &self.outbox
    }

    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(pool) => pool.close().await,
            Pool::Postgres(pool) => pool.close().await,
        }
    }
}

fn build(backend: Backend, statement: &impl QueryStatementBuilder) -> Query {
    let (sql, Values(args)) = match backend {
        Backend::Sqlite => statement.build_any(&SqliteQueryBuilder),
        Backend::Postgres => statement.build_any(&PostgresQueryBuilder),
    };
    Query {
        sql: Cow::Owned(sql),
        args,
    }
}

/// Room for the largest answer a store reads at once (list-users: at most 1000 users a page)
/// and its completion message; the channel only holds rows not yet taken.
const SQLITE_ROW_BUFFER: usize = 1024;

async fn open_sqlite(url: &str, max_connections: u32) -> Result<SqlitePool, DbError> {
    let options = SqliteConnectOptions::from_str(url)
        .map_err(DbError::Connect)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(Duration::from_secs(5))
        .foreign_keys(true)
        // Rows cross from the connection's thread to the caller through this channel. At
        // sqlx's default (50) a larger answer (a page of users) fills it: the thread then
        // blocks, and the caller wakes it again as it takes rows (futex waits and wakes on
        // both sides). With room for the largest page the thread steps through to the end.
        .row_buffer_size(SQLITE_ROW_BUFFER);
    let path = options.get_filename();
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| DbError::Directory {
            path: parent.display().to_string(),
            source,
        })?;
    }
    SqlitePoolOptions::new()
        .max_connections(max_connections)
        // A ping is a round trip to the connection's thread (two thread wakes), and a
        // connection in this process cannot have gone away while idle. sqlx still pings each
        // one as it comes back to the pool (not configurable), which drops a broken one.
        .test_before_acquire(false)
        .acquire_timeout(Duration::from_secs(5))
        .connect_with(options)
        .await
        .map_err(DbError::Connect)
}

/// A pooled PostgreSQL connection idle longer than this is pinged before it is handed out.
pub const PG_PING_AFTER_IDLE: Duration = Duration::from_secs(1);

async fn open_postgres(url: &str, max_connections: u32) -> Result<PgPool, DbError> {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // sqlx pings (a round trip) every connection it hands out, and again as each comes
        // back: a statement cost three round trips. One back in the pool less than a second
        // is not pinged again. Under load that is every connection: one the server ends
        // (a restart) fails its next statement, and the ping on its way back drops it. One
        // idle for longer (a quiet spell, a proxy's idle cut) is pinged, and replaced if it
        // is gone. sqlx's idle check (every 10 minutes) puts idle connections back as if
        // returned just then, so for a second after it they go out unpinged as well.
        .test_before_acquire(false)
        .before_acquire(|connection, meta| {
            Box::pin(async move {
                if meta.idle_for > PG_PING_AFTER_IDLE {
                    sqlx::Connection::ping(connection).await?;
                }
                Ok(true)
            })
        })
        .connect(url)
        .await
        .map_err(DbError::Connect)
}

enum TxInner {
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
    Postgres(sqlx::Transaction<'static, sqlx::Postgres>),
}

/// The outbox's columns an event is written to (kit's table: written here, read by the relay
/// in [`crate::outbox`]), in the order [`bind_outbox_row`] binds them (`created_at` twice).
const OUTBOX_COLUMNS: &str = "id, topic, payload, headers, created_at, next_attempt_at";

/// The statement that writes `event` (run by [`Tx::enqueue`](crate::db::Tx::enqueue)).
fn outbox_insert(event: &OutboxEvent) -> Query {
    bind_outbox_row(
        query(
            "INSERT INTO outbox (id, topic, payload, headers, created_at, next_attempt_at) \
             VALUES ($1, $2, $3, $4, $5, $5)",
        ),
        event,
    )
}

/// Binds `event`'s values for [`OUTBOX_COLUMNS`] as the next five parameters (`created_at` serves
/// `next_attempt_at` too).
fn bind_outbox_row(statement: Query, event: &OutboxEvent) -> Query {
    statement
        .bind(event.id.as_str())
        .bind(event.topic)
        .bind(event.payload.clone())
        .bind(event.headers.as_str())
        .bind(event.created_at)
}

/// An open transaction; dropped without [`commit`](Tx::commit), it rolls back.
pub struct Tx {
    inner: TxInner,
    outbox: OutboxSignal,
    sealing: Option<SealingKey>,
    enqueued: bool,
}

impl Tx {
    /// Writes an event to the outbox in this transaction: it is published only if the
    /// transaction commits, and then at least once.
    pub async fn enqueue(&mut self, event: &OutboxEvent) -> Result<(), DbError> {
        let event = sealed(event, self.sealing.as_ref());
        outbox_insert(&event).execute(&mut *self).await?;
        self.enqueued = true;
        Ok(())
    }

    /// The sealing key of the pool this transaction came from.
    pub fn sealing(&self) -> Option<&SealingKey> {
        self.sealing.as_ref()
    }

    pub fn build(&self, statement: &impl QueryStatementBuilder) -> Query {
        let backend = match self.inner {
            TxInner::Sqlite(_) => Backend::Sqlite,
            TxInner::Postgres(_) => Backend::Postgres,
        };
        build(backend, statement)
    }

    pub async fn commit(self) -> Result<(), DbError> {
        match self.inner {
            TxInner::Sqlite(tx) => tx.commit().await?,
            TxInner::Postgres(tx) => tx.commit().await?,
        }
        if self.enqueued {
            self.outbox.notify();
        }
        Ok(())
    }
}

/// Where a [`Query`] runs: a pool (`&db`) or an open transaction (`&mut tx`).
pub trait Executor: Send {
    #[doc(hidden)]
    fn target(&mut self) -> Target<'_>;
}

#[doc(hidden)]
pub enum Target<'a> {
    SqlitePool(&'a SqlitePool),
    PgPool(&'a PgPool),
    SqliteConn(&'a mut SqliteConnection),
    PgConn(&'a mut PgConnection),
}

impl Executor for &Db {
    fn target(&mut self) -> Target<'_> {
        match &self.pool {
            Pool::Sqlite(pool) => Target::SqlitePool(pool),
            Pool::Postgres(pool) => Target::PgPool(pool),
        }
    }
}

impl Executor for &mut Tx {
    fn target(&mut self) -> Target<'_> {
        match &mut self.inner {
            TxInner::Sqlite(tx) => Target::SqliteConn(tx),
            TxInner::Postgres(tx) => Target::PgConn(tx),
        }
    }
}

/// A row type that decodes on both backends (`#[derive(sqlx::FromRow)]`, or a tuple).
pub trait Row: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin {}
impl<T> Row for T where T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin
{}

/// One SQL statement with its bound values. Write SQL both backends accept: `$1` placeholders,
/// `RETURNING`, `ON CONFLICT`; no `ILIKE`, arrays or `now()` (times come from Rust).
#[derive(Clone, Debug)]
pub struct Query {
    sql: Cow<'static, str>,
    args: Vec<Value>,
}

/// A statement written once for both backends.
pub fn query(sql: &'static str) -> Query {
    Query {
        sql: Cow::Borrowed(sql),
        args: Vec::new(),
    }
}

/// Runs `$body` with `$e` bound to whichever connection `$on` targets.
macro_rules! dispatch {
    ($on:expr, $query:expr, |$e:ident, $sql:ident, $args:ident| $body:expr) => {{
        let Query { sql, args } = $query;
        let $sql = AssertSqlSafe(sql);
        let $args = SqlxValues(Values(args));
        let result = match $on.target() {
            Target::SqlitePool($e) => $body,
            Target::PgPool($e) => $body,
            Target::SqliteConn($e) => $body,
            Target::PgConn($e) => $body,
        };
        result.map_err(DbError::from)
    }};
}

impl Query {
    /// Binds the next `$n`: strings, integers, booleans, `DateTime<Utc>`, and `Option`s of them.
    pub fn bind(mut self, value: impl Into<Value>) -> Self {
        self.args.push(value.into());
        self
    }

    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// Rows affected.
    pub async fn execute(self, mut on: impl Executor) -> Result<u64, DbError> {
        dispatch!(on, self, |e, sql, args| sqlx::query_with(sql, args)
            .execute(e)
            .await
            .map(|done| done.rows_affected()))
    }

    pub async fn fetch_one<T: Row>(self, mut on: impl Executor) -> Result<T, DbError> {
        dispatch!(on, self, |e, sql, args| sqlx::query_as_with(sql, args)
            .fetch_one(e)
            .await)
    }

    pub async fn fetch_optional<T: Row>(self, mut on: impl Executor) -> Result<Option<T>, DbError> {
        dispatch!(on, self, |e, sql, args| sqlx::query_as_with(sql, args)
            .fetch_optional(e)
            .await)
    }

    pub async fn fetch_all<T: Row>(self, mut on: impl Executor) -> Result<Vec<T>, DbError> {
        dispatch!(on, self, |e, sql, args| sqlx::query_as_with(sql, args)
            .fetch_all(e)
            .await)
    }
}
