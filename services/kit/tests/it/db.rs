//! The storage API behaves the same on SQLite and PostgreSQL: values of every kind round-trip,
//! transactions commit or roll back whole, the outbox row commits with the change, unique
//! violations are recognised, and sea-query statements render in each dialect.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::sea_query::{Alias, Expr, ExprTrait, Order, Query};
use gatehouse_kit::db::{Backend, DbError, KIT_MIGRATIONS, Migrations, query};
use gatehouse_kit::outbox::{self, OutboxEvent};
use gatehouse_kit::testing::TestDb;
use gatehouse_kit::testing::schema::assert_parity;
use gatehouse_proto::events::v1::UserUpdated;
use rstest::rstest;
use sqlx::migrate::Migrator;

static EMPTY: Migrator = Migrator::DEFAULT;
const NONE: Migrations = Migrations {
    sqlite: &EMPTY,
    postgres: &EMPTY,
};

#[derive(Debug, PartialEq, sqlx::FromRow)]
struct Row {
    id: String,
    note: Option<String>,
    flag: bool,
    count: i64,
    at: DateTime<Utc>,
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn one_statement_runs_on_both_backends_with_native_types(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&NONE).await;
    let ddl = match backend {
        Backend::Sqlite => {
            "CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT, flag BOOLEAN NOT NULL, count BIGINT NOT NULL, at TEXT NOT NULL)"
        }
        Backend::Postgres => {
            "CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT, flag BOOLEAN NOT NULL, count BIGINT NOT NULL, at TIMESTAMPTZ NOT NULL)"
        }
    };
    query(ddl).execute(&db).await.unwrap();
    let at = gatehouse_kit::ids::now();
    let insert = |id: &'static str, note: Option<String>, flag: bool, count: i64| {
        query("INSERT INTO t (id, note, flag, count, at) VALUES ($1, $2, $3, $4, $5)")
            .bind(id)
            .bind(note)
            .bind(flag)
            .bind(count)
            .bind(at)
    };
    assert_eq!(
        insert("a", Some("hello".into()), true, 7)
            .execute(&db)
            .await
            .unwrap(),
        1
    );
    insert("b", None, false, -1).execute(&db).await.unwrap();
    let a: Row = query("SELECT id, note, flag, count, at FROM t WHERE id = $1")
        .bind("a")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(
        a,
        Row {
            id: "a".into(),
            note: Some("hello".into()),
            flag: true,
            count: 7,
            at
        },
        "{backend:?}"
    );
    let missing: Option<Row> = query("SELECT id, note, flag, count, at FROM t WHERE id = $1")
        .bind("zz")
        .fetch_optional(&db)
        .await
        .unwrap();
    assert_eq!(missing, None);

    // A duplicate key is recognised as such on both backends.
    let again = insert("a", None, true, 0).execute(&db).await;
    assert!(
        matches!(again, Err(DbError::UniqueViolation(_))),
        "{backend:?}: {again:?}"
    );

    // A dynamic statement (filter, sort, page) rendered in this backend's dialect.
    let statement = Query::select()
        .columns(["id", "note", "flag", "count", "at"].map(Alias::new))
        .from(Alias::new("t"))
        .and_where(Expr::col(Alias::new("count")).gt(-5))
        .order_by(Alias::new("count"), Order::Asc)
        .limit(10)
        .to_owned();
    let built = db.build(&statement);
    let placeholder = match backend {
        Backend::Sqlite => "?",
        Backend::Postgres => "$1",
    };
    assert!(built.sql().contains(placeholder), "{}", built.sql());
    let rows: Vec<Row> = built.fetch_all(&db).await.unwrap();
    assert_eq!(
        rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["b", "a"],
        "{backend:?}"
    );

    // The same as a page (the LIMIT written in, the offset bound after the filter's value).
    let unpaged = statement.clone().reset_limit().to_owned();
    for (limit, offset, expected) in [
        (Some(1), None, vec!["b"]),
        (Some(1), Some(1), vec!["a"]),
        (None, Some(1), vec!["a"]),
        (Some(5), Some(2), vec![]),
        (None, None, vec!["b", "a"]),
    ] {
        let page = db.build_page(&unpaged, limit, offset);
        if let Some(limit) = limit {
            assert!(
                page.sql().contains(&format!("LIMIT {limit}")),
                "{}",
                page.sql()
            );
        }
        let rows: Vec<Row> = page.fetch_all(&db).await.unwrap();
        assert_eq!(
            rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            expected,
            "{backend:?}: {limit:?} {offset:?}"
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn events_commit_with_their_change_or_not_at_all(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&NONE).await;
    query("CREATE TABLE things (id TEXT PRIMARY KEY)")
        .execute(&db)
        .await
        .unwrap();

    let mut tx = db.begin().await.unwrap();
    query("INSERT INTO things (id) VALUES ($1)")
        .bind("kept")
        .execute(&mut tx)
        .await
        .unwrap();
    tx.enqueue(&OutboxEvent::new(&UserUpdated {
        user_id: "kept".into(),
        ..Default::default()
    }))
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let mut dropped = db.begin().await.unwrap();
    query("INSERT INTO things (id) VALUES ($1)")
        .bind("lost")
        .execute(&mut dropped)
        .await
        .unwrap();
    dropped
        .enqueue(&OutboxEvent::new(&UserUpdated {
            user_id: "lost".into(),
            ..Default::default()
        }))
        .await
        .unwrap();
    drop(dropped);

    let things: Vec<(String,)> = query("SELECT id FROM things").fetch_all(&db).await.unwrap();
    assert_eq!(things, vec![("kept".to_string(),)], "{backend:?}");
    assert_eq!(
        outbox::pending(&db).await.unwrap(),
        1,
        "{backend:?}: only the committed event"
    );
}

#[tokio::test]
async fn kit_migrations_agree_across_backends() {
    // kit's own migrations run with any service's; with none of a service's, only kit's.
    assert_parity(&NONE).await;
    assert!(KIT_MIGRATIONS.sqlite.iter().count() > 0);
}

#[tokio::test]
async fn the_parity_check_sees_a_difference() {
    // Two databases that differ by one nullable column must not compare equal.
    let sqlite = TestDb::new(Backend::Sqlite).await;
    let postgres = TestDb::new(Backend::Postgres).await;
    let (a, b) = (sqlite.connect(&NONE).await, postgres.connect(&NONE).await);
    query("CREATE TABLE x (id TEXT PRIMARY KEY, v TEXT)")
        .execute(&a)
        .await
        .unwrap();
    query("CREATE TABLE x (id TEXT PRIMARY KEY, v TEXT NOT NULL)")
        .execute(&b)
        .await
        .unwrap();
    let (left, right) = (
        gatehouse_kit::testing::schema::read(&a).await,
        gatehouse_kit::testing::schema::read(&b).await,
    );
    assert_ne!(left, right);
    assert_eq!(left.tables["x"].primary_key, right.tables["x"].primary_key);
}

/// Transactions that read and then write, at once: each waits its turn and commits. (SQLite's
/// deferred `BEGIN` failed the later writers with "database is locked" instead of waiting.)
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn concurrent_read_then_write_transactions_all_commit(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let db = database.connect(&NONE).await;
    query("CREATE TABLE counter (id TEXT PRIMARY KEY, n BIGINT NOT NULL)")
        .execute(&db)
        .await
        .unwrap();
    query("INSERT INTO counter (id, n) VALUES ('c', 0)")
        .execute(&db)
        .await
        .unwrap();
    let writers = (0..6).map(|_| {
        let db = db.clone();
        tokio::spawn(async move {
            let mut tx = db.begin().await?;
            let (_seen,): (i64,) = query("SELECT n FROM counter WHERE id = 'c'")
                .fetch_one(&mut tx)
                .await?;
            // Let the others read in the meantime.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            query("UPDATE counter SET n = n + 1 WHERE id = 'c'")
                .execute(&mut tx)
                .await?;
            tx.commit().await
        })
    });
    for writer in futures_util::future::join_all(writers).await {
        writer
            .unwrap()
            .unwrap_or_else(|e| panic!("{backend:?}: a writer failed: {e}"));
    }
    let (n,): (i64,) = query("SELECT n FROM counter WHERE id = 'c'")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(n, 6, "{backend:?}");
}
