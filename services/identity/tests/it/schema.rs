use gatehouse_identity::MIGRATIONS;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::testing::TestDb;
use gatehouse_kit::testing::schema::assert_parity;
use rstest::rstest;
use sqlx::migrate::Migrator;

#[tokio::test]
async fn sqlite_and_postgres_migrations_agree() {
    assert_parity(&MIGRATIONS).await;
}

/// A database made by the foundation (its migration 0001 only, outbox included) starts with
/// today's migrations and keeps its users: applied migrations are never edited.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_database_from_before_the_reshape_migrates_forward(#[case] backend: Backend) {
    let database = TestDb::new(backend).await;
    let first = |all: &Migrator| {
        Migrator::with_migrations(all.iter().filter(|m| m.version == 1).cloned().collect())
    };
    match backend {
        Backend::Sqlite => {
            let url = format!("{}?mode=rwc", database.url);
            let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
            first(MIGRATIONS.sqlite).run(&pool).await.unwrap();
            sqlx::query("INSERT INTO users (id, name, email, email_verified, created_at, updated_at) VALUES ('u1', 'Old', 'old@example.com', false, '2026-11-01T00:00:00+00:00', '2026-11-01T00:00:00+00:00')")
                .execute(&pool).await.unwrap();
            pool.close().await;
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&database.url).await.unwrap();
            first(MIGRATIONS.postgres).run(&pool).await.unwrap();
            sqlx::query("INSERT INTO users (id, name, email, email_verified, created_at, updated_at) VALUES ('u1', 'Old', 'old@example.com', false, now(), now())")
                .execute(&pool).await.unwrap();
            pool.close().await;
        }
    }
    let db = database.connect(&MIGRATIONS).await;
    let (name,): (String,) = query("SELECT name FROM users WHERE id = $1")
        .bind("u1")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(name, "Old", "{backend:?}");
    let (counted,): (i64,) = query("SELECT users FROM user_count")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(
        counted, 1,
        "{backend:?}: users from before the count are counted"
    );
    assert_eq!(
        gatehouse_kit::outbox::pending(&db).await.unwrap(),
        0,
        "the new outbox"
    );
}
