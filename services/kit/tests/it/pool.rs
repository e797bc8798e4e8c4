//! kit's PostgreSQL pool against a real server: a connection used moments ago goes straight to
//! its statement (no ping first), one that sat idle past `PG_PING_AFTER_IDLE` is checked and
//! replaced when the server ended it, and one the server ended moments after its use costs
//! one statement, after which the pool has a working connection again.

use std::future::Future as _;
use std::task::Poll;
use std::time::Duration;

use gatehouse_kit::db::{Backend, Db, Migrations, PG_PING_AFTER_IDLE, query};
use gatehouse_kit::testing::{
    TestDb, ToggleProxy, postgres_admin_url, postgres_target, postgres_url_through,
};
use sqlx::Connection as _;
use sqlx::migrate::Migrator;

static EMPTY: Migrator = Migrator::DEFAULT;
const NONE: Migrations = Migrations {
    sqlite: &EMPTY,
    postgres: &EMPTY,
};

async fn backend_pid(db: &Db) -> Result<i32, gatehouse_kit::db::DbError> {
    let (pid,): (i32,) = query("SELECT pg_backend_pid()").fetch_one(db).await?;
    Ok(pid)
}

/// Lets the pool's background return of the last connection (its ping) finish.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// A pool of one connection, used once, back in the pool, then ended by the server: the
/// backend it had. The administrator's connection is open before, so that the connection is
/// ended well inside `PG_PING_AFTER_IDLE` of its return.
async fn pool_whose_connection_the_server_ended(database: &TestDb) -> (Db, i32) {
    let mut admin = sqlx::PgConnection::connect(&postgres_admin_url())
        .await
        .expect("admin connection");
    let db = Db::connect(&database.url, 1, &NONE)
        .await
        .expect("pool of one");
    let first = backend_pid(&db).await.expect("first statement");
    settle().await;
    // With a timeout it waits until the backend is gone (PostgreSQL 14 and later).
    let (ended,): (bool,) = sqlx::query_as("SELECT pg_terminate_backend($1, 5000)")
        .bind(first)
        .fetch_one(&mut admin)
        .await
        .expect("pg_terminate_backend");
    assert!(ended, "backend {first} did not end");
    (db, first)
}

#[tokio::test]
async fn a_statement_on_a_connection_used_moments_ago_is_not_preceded_by_a_ping() {
    let database = TestDb::new(Backend::Postgres).await;
    let proxy = ToggleProxy::start(&postgres_target(&database.url)).await;
    let db = Db::connect(&postgres_url_through(&database.url, proxy.addr), 1, &NONE)
        .await
        .expect("pool through the proxy");
    const SQL: &str = "SELECT $1::BIGINT";
    // The first run also prepares the statement (a round trip of its own).
    let _: (i64,) = query(SQL).bind(0i64).fetch_one(&db).await.expect("warm-up");
    settle().await;
    let before = proxy.client_reads();
    for n in 1..=10i64 {
        let (echo,): (i64,) = query(SQL).bind(n).fetch_one(&db).await.expect("statement");
        assert_eq!(echo, n);
    }
    settle().await;
    // Each statement is one flush, and sqlx pings each connection as it comes back (one
    // more); a ping on the way out as well made it 30.
    assert_eq!(proxy.client_reads() - before, 20);
}

#[tokio::test]
async fn a_connection_the_server_ended_while_idle_is_replaced_before_it_is_used() {
    let database = TestDb::new(Backend::Postgres).await;
    let (db, first) = pool_whose_connection_the_server_ended(&database).await;
    tokio::time::sleep(PG_PING_AFTER_IDLE).await;
    let next = backend_pid(&db)
        .await
        .expect("the ping finds the ended connection and a new one answers");
    assert_ne!(next, first);
}

#[tokio::test]
async fn a_connection_the_server_ended_moments_after_use_costs_one_statement_then_is_replaced() {
    let database = TestDb::new(Backend::Postgres).await;
    let (db, first) = pool_whose_connection_the_server_ended(&database).await;
    let ended = backend_pid(&db).await.expect_err(
        "a connection back in the pool moments ago is not pinged: its statement meets the end",
    );
    assert!(
        ended.is_unavailable(),
        "a server that ended the connection is unavailable (a 503), not a failed statement: {ended:?}"
    );
    let next = backend_pid(&db)
        .await
        .expect("the failed connection was dropped and a new one answers");
    assert_ne!(next, first);
}

/// A caller that goes away while its `BEGIN` is on the wire (polled once, then dropped, as an
/// aborted task or a timeout leaves it) leaves no transaction open on the pooled connection:
/// the next statement on it is committed and seen by everyone, and holds no lock.
/// sqlx 0.9.0 alone fails this (launchbadge/sqlx#4393): the statement ran inside the
/// abandoned transaction and was never committed.
#[tokio::test]
async fn a_transaction_abandoned_while_it_begins_leaves_the_connection_clean() {
    let database = TestDb::new(Backend::Postgres).await;
    let mut observer = sqlx::PgConnection::connect(&database.url)
        .await
        .expect("observer connection");
    sqlx::query("CREATE TABLE marks (n INTEGER NOT NULL)")
        .execute(&mut observer)
        .await
        .expect("create table");
    let db = Db::connect(&database.url, 1, &NONE)
        .await
        .expect("pool of one");
    for n in 0..20 {
        backend_pid(&db).await.expect("the connection is warm");
        settle().await;
        // One poll: the idle connection is taken, `BEGIN` is sent, its answer not yet read.
        let mut begin = Box::pin(db.begin());
        let first = std::future::poll_fn(|cx| Poll::Ready(begin.as_mut().poll(cx))).await;
        assert!(first.is_pending(), "BEGIN answered within its first poll");
        drop(begin);
        query("INSERT INTO marks (n) VALUES ($1)")
            .bind(n)
            .execute(&db)
            .await
            .expect("insert after the abandoned begin");
        let (seen,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM marks WHERE n = $1")
            .bind(n)
            .fetch_one(&mut observer)
            .await
            .expect("count");
        assert_eq!(seen, 1, "round {n}: the insert was not committed");
    }
    // The last round's abandoned BEGIN may still be finishing in its task (when the insert
    // took the connection first): it must end its transaction, not leave it for the
    // connection's next use.
    let mut open: i64 = 0;
    for _ in 0..40 {
        (open,) = sqlx::query_as(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() \
             AND state LIKE 'idle in transaction%'",
        )
        .fetch_one(&mut observer)
        .await
        .expect("activity");
        if open == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(open, 0, "a session was left inside a transaction");
}
