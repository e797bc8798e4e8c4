//! A service part's shutdown: background work handed to `GrpcServices::drain` finishes before
//! the database closes, so what it did is also recorded.

use std::time::Duration;

use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, Db, Migrations, query};
use gatehouse_kit::service::{Context, GrpcServices, Part, ServicePart};
use gatehouse_kit::testing::TestDb;
use sqlx::migrate::Migrator;
use tokio_util::sync::CancellationToken;

static EMPTY: Migrator = Migrator::DEFAULT;
const NONE: Migrations = Migrations {
    sqlite: &EMPTY,
    postgres: &EMPTY,
};

#[derive(sqlx::FromRow)]
struct Count {
    n: i64,
}

/// Starts nothing but a task that, once shutdown begins, takes a while and then writes a row.
const SLOW_TO_STOP: ServicePart = ServicePart {
    name: "drainer",
    about: "test part",
    default_listen: "127.0.0.1:0",
    default_ops_listen: "127.0.0.1:0",
    migrations: &NONE,
    database_connections: gatehouse_kit::service::DEFAULT_DATABASE_CONNECTIONS,
    start: |db, _context, shutdown| {
        Box::pin(async move {
            let task = tokio::spawn(async move {
                shutdown.cancelled().await;
                tokio::time::sleep(Duration::from_millis(300)).await;
                let written = query(
                    "INSERT INTO inbox (consumer, event_id, received_at) VALUES ($1, $2, $3)",
                )
                .bind("drainer")
                .bind("finished-after-shutdown")
                .bind(gatehouse_kit::ids::now())
                .execute(&db)
                .await;
                assert!(
                    written.is_ok(),
                    "the database was closed under the task: {written:?}"
                );
            });
            Ok(GrpcServices::new().drain(task))
        })
    },
};

#[tokio::test]
async fn shutdown_waits_for_drained_background_work_before_closing_the_database() {
    let database = TestDb::new(Backend::Sqlite).await;
    let env = Env::from_pairs([
        ("DRAINER_DATABASE_URL", database.url.as_str()),
        (
            "SERVICE_TOKEN",
            "kit-service-tests-service-token-0123456789",
        ),
    ]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let shutdown = CancellationToken::new();
    let running =
        tokio::spawn(SLOW_TO_STOP.run(Context::from_env(env).unwrap(), listener, shutdown.clone()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    shutdown.cancel();
    running.await.unwrap().unwrap();

    let db = Db::connect(&database.url, 1, &NONE).await.unwrap();
    let count: Count = query("SELECT COUNT(*) AS n FROM inbox WHERE consumer = 'drainer'")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(
        count.n, 1,
        "the work done after shutdown began was recorded"
    );
}
