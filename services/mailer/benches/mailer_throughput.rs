//! How many mails per second the mailer writes and sends to a real SMTP server: MAILS
//! `mail.requested` events are published at once on the in-process bus, and the clock runs
//! until the last one is accepted by the server at 127.0.0.1:SMTP_PORT (bench/run-mailer.sh
//! starts aiosmtpd there). BACKEND=sqlite|postgres picks the mail log's database.

use std::time::{Duration, Instant};

use gatehouse_kit::bus::Message;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_kit::service::{Context, Part};
use gatehouse_kit::testing::TestDb;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{MailKind, MailRequested};
use prost::Message as _;
use tokio_util::sync::CancellationToken;

#[derive(sqlx::FromRow)]
struct Count {
    n: i64,
}

async fn sent(db: &Db) -> i64 {
    query("SELECT COUNT(*) AS n FROM mails WHERE status = 'sent'")
        .fetch_one::<Count>(db)
        .await
        .map_or(0, |c| c.n)
}

fn var(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.into())
}

#[tokio::main]
async fn main() {
    let mails: usize = var("MAILS", "5000").parse().expect("MAILS");
    let port = var("SMTP_PORT", "2525");
    let concurrency = var("MAIL_CONCURRENCY", "16");
    let backend = match var("BACKEND", "sqlite").as_str() {
        "postgres" => Backend::Postgres,
        _ => Backend::Sqlite,
    };
    let database = TestDb::new(backend).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mail_url = format!("smtp://127.0.0.1:{port}");
    let env = Env::from_pairs([
        ("MAILER_DATABASE_URL", database.url.as_str()),
        ("SERVICE_TOKEN", "mailer-bench-service-token-0123456789"),
        ("MAIL_URL", mail_url.as_str()),
        ("MAIL_CONCURRENCY", concurrency.as_str()),
        ("BASE_URL", "https://auth.example.com"),
        ("RUST_LOG", "warn"),
    ]);
    let context = Context::from_env(env).unwrap();
    let shutdown = CancellationToken::new();
    tokio::spawn(gatehouse_mailer::SERVICE.run(context.clone(), listener, shutdown.clone()));
    // The part migrates its database and declares its queue as it starts.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let db = Db::connect(&database.url, 2, &gatehouse_mailer::MIGRATIONS)
        .await
        .unwrap();

    let started = Instant::now();
    for i in 0..mails {
        let request = MailRequested {
            kind: MailKind::VerifyEmail.into(),
            to: format!("bench-{i}@example.com"),
            name: format!("Bench {i}"),
            language: [0, 1, 3, 4, 6, 15, 16, 82][i % 8],
            link_path: format!("/api/auth/verify-email?token=t{i}&callbackURL=%2F"),
            expires_in_seconds: 3600,
            params: Default::default(),
            user_id: format!("user-{i}"),
        };
        let message = Message {
            id: gatehouse_kit::ids::new_id(),
            topic: MailRequested::TOPIC.into(),
            payload: request.encode_to_vec(),
            headers: Default::default(),
        };
        context.bus.publish(&message).await.expect("publish");
    }
    let published = started.elapsed();
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut done = 0;
    while Instant::now() < deadline {
        done = sent(&db).await;
        if done >= mails as i64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed();
    shutdown.cancel();
    println!(
        "mailer throughput ({backend:?}, MAIL_CONCURRENCY={concurrency}): {done} of {mails} mails sent in {:.2} s = {:.0} mails/s (publishing took {:.2} s)",
        elapsed.as_secs_f64(),
        done as f64 / elapsed.as_secs_f64(),
        published.as_secs_f64()
    );
    assert_eq!(
        done, mails as i64,
        "not every mail was sent within 10 minutes"
    );
}
