//! Requests in, mails out through a real SMTP server: written in the recipient's language with
//! absolute links, sent once, retried while the server is down or busy, dead-lettered when it
//! refuses for good. Each on SQLite and on PostgreSQL.

use std::time::Duration;

use gatehouse_kit::db::Backend;
use gatehouse_proto::mailer::v1::MailStatus;
use rstest::rstest;

use crate::support::{BASE_URL, Mailer, SmtpSink, free_port, reset_password};

fn temp_dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "gatehouse-mailer-{what}-{}",
        gatehouse_kit::ids::new_id()
    ))
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_requested_mail_is_written_sent_once_and_logged(#[case] backend: Backend) {
    let port = free_port();
    let sink = SmtpSink::start(port, temp_dir("sent")).await;
    let mailer = Mailer::start(backend, &format!("smtp://127.0.0.1:{port}")).await;

    let mut request = reset_password("ada@example.com", "Ada Lovelace", "tok-ABC123");
    request.language = 6; // German
    let id = mailer.request(request).await;
    let sent = mailer
        .wait_for(MailStatus::Sent, 1, Duration::from_secs(10))
        .await;

    let mails = sink.received();
    assert_eq!(mails.len(), 1);
    let mail = &mails[0];
    assert_eq!(mail.to, "ada@example.com");
    assert_eq!(mail.from, "no-reply@gatehouse.test");
    assert_eq!(mail.subject, "Passwort zurücksetzen");
    let link =
        format!("{BASE_URL}/api/auth/reset-password/tok-ABC123?callbackURL=%2Freset-password");
    assert!(mail.text.contains(&link), "{}", mail.text);
    assert!(
        mail.html.contains(&format!("href=\"{link}\"")),
        "{}",
        mail.html
    );
    assert!(mail.text.contains("Hallo Ada Lovelace,"), "{}", mail.text);
    assert!(mail.text.contains("1 Stunde"), "{}", mail.text);
    assert_eq!(mail.message_id, format!("{id}@gatehouse"));

    // The log says what happened, and the mail is the request's (its event id).
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].id, id);
    assert_eq!(sent[0].recipient, "ada@example.com");
    assert_eq!(sent[0].kind, "reset-password");
    assert_eq!(sent[0].language, 6);
    assert_eq!(sent[0].attempts, 1);
    assert!(sent[0].sent_at_unix_ms >= sent[0].created_at_unix_ms);
    assert!(sent[0].last_error.is_empty());

    // The same event delivered again (at-least-once) sends nothing more.
    let message = gatehouse_kit::bus::Message {
        id: id.clone(),
        topic: "mail.requested".into(),
        payload: prost::Message::encode_to_vec(&reset_password(
            "ada@example.com",
            "Ada",
            "tok-ABC123",
        )),
        headers: Default::default(),
    };
    mailer.context.bus.publish(&message).await.unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(sink.received().len(), 1);
    assert_eq!(mailer.mails(MailStatus::Unspecified).await.len(), 1);
    sink.stop().await;
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn mail_requested_while_smtp_is_down_goes_out_when_it_is_back(#[case] backend: Backend) {
    let port = free_port();
    let mailer = Mailer::start(backend, &format!("smtp://127.0.0.1:{port}")).await;
    let recipients = ["one@example.com", "two@example.com", "three@example.com"];
    for (i, to) in recipients.iter().enumerate() {
        mailer
            .request(reset_password(to, "Someone", &format!("tok-{i}")))
            .await;
    }
    // Tried, refused by the closed port, and kept.
    let tried = gatehouse_kit::testing::eventually(Duration::from_secs(10), || async {
        let queued = mailer.mails(MailStatus::Queued).await;
        (queued.len() == 3
            && queued
                .iter()
                .all(|m| m.attempts >= 1 && !m.last_error.is_empty()))
        .then_some(queued)
    })
    .await
    .expect("three mails tried and queued again");
    assert!(tried.iter().all(|m| m.status == MailStatus::Queued as i32));

    let sink = SmtpSink::start(port, temp_dir("late")).await;
    let sent = mailer
        .wait_for(MailStatus::Sent, 3, Duration::from_secs(15))
        .await;
    assert!(sent.iter().all(|m| m.attempts >= 2), "{sent:?}");
    let mut received: Vec<String> = sink.received().into_iter().map(|m| m.to).collect();
    received.sort();
    let mut expected: Vec<String> = recipients.iter().map(|r| r.to_string()).collect();
    expected.sort();
    assert_eq!(received, expected);
    sink.stop().await;
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_refused_recipient_is_dead_lettered_and_a_busy_one_retried(#[case] backend: Backend) {
    let port = free_port();
    let sink = SmtpSink::start(port, temp_dir("refused")).await;
    let mailer = Mailer::start(backend, &format!("smtp://127.0.0.1:{port}")).await;
    mailer
        .request(reset_password("nobody@reject.test", "Nobody", "tok-1"))
        .await;
    mailer
        .request(reset_password("later@busy.test", "Later", "tok-2"))
        .await;

    let failed = mailer
        .wait_for(MailStatus::Failed, 1, Duration::from_secs(10))
        .await;
    assert_eq!(failed[0].recipient, "nobody@reject.test");
    assert_eq!(
        failed[0].attempts, 1,
        "a permanent refusal is not tried again"
    );
    assert!(
        failed[0].last_error.contains("550"),
        "{}",
        failed[0].last_error
    );

    let busy = gatehouse_kit::testing::eventually(Duration::from_secs(10), || async {
        let queued = mailer.mails(MailStatus::Queued).await;
        queued.into_iter().find(|m| m.attempts >= 2)
    })
    .await
    .expect("the busy mailbox tried again");
    assert_eq!(busy.recipient, "later@busy.test");
    assert!(busy.last_error.contains("451"), "{}", busy.last_error);
    assert!(sink.received().is_empty());
    sink.stop().await;
}

#[tokio::test]
async fn an_unknown_language_is_written_in_english() {
    let port = free_port();
    let sink = SmtpSink::start(port, temp_dir("english")).await;
    let mailer = Mailer::start(Backend::Sqlite, &format!("smtp://127.0.0.1:{port}")).await;
    let mut request = reset_password("eve@example.com", "Eve", "tok-9");
    request.language = 99;
    mailer.request(request).await;
    mailer
        .wait_for(MailStatus::Sent, 1, Duration::from_secs(10))
        .await;
    assert_eq!(sink.received()[0].subject, "Reset your password");
    sink.stop().await;
}

/// A mailer killed while it sends (its task dropped mid-flight, as SIGKILL would leave it)
/// re-sends at most the mails it was handing over at that instant, not its whole batch, and
/// the mails it had claimed go out within one claim lease after another mailer starts.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_mailer_killed_mid_delivery_sends_each_mail_once_more_at_most(#[case] backend: Backend) {
    use gatehouse_kit::config::Env;
    use gatehouse_kit::db::query;
    use gatehouse_kit::testing::TestDb;
    use gatehouse_mailer::config::MailerConfig;
    use gatehouse_mailer::delivery::{Delivery, store, transport::Transport};
    use std::collections::HashMap;
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    const MAILS: usize = 30;
    const CONCURRENCY: usize = 4;
    let port = free_port();
    // 50 ms over each mail: there are always mails in flight when the mailer dies.
    let sink = SmtpSink::start_with(port, temp_dir("killed"), &["--delay", "0.05"]).await;
    let database = TestDb::new(backend).await;
    let db = database.connect(&gatehouse_mailer::MIGRATIONS).await;
    let now = gatehouse_kit::ids::now();
    let mut tx = db.begin().await.unwrap();
    for n in 0..MAILS {
        let id = format!("mail-{n:03}");
        store::insert(
            &mut tx,
            &store::NewMail {
                id: &id,
                recipient: "ada@example.com",
                kind: "reset-password",
                language: 3,
                subject: "Reset",
                text_body: "text",
                html_body: "<p>html</p>",
                now,
            },
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    let mailer = || {
        let url = format!("smtp://127.0.0.1:{port}");
        let concurrency = CONCURRENCY.to_string();
        let env = Env::from_pairs([
            ("MAIL_URL", url.as_str()),
            ("MAIL_CONCURRENCY", &concurrency),
        ]);
        let mut config = MailerConfig::from_env(&env, "/nonexistent").unwrap();
        config.claim_lease = Duration::from_secs(2);
        Delivery {
            db: db.clone(),
            transport: Transport::from_url(&config.mail_url, CONCURRENCY, None).unwrap(),
            config,
            queued: Arc::new(tokio::sync::Notify::new()),
        }
    };

    let first = mailer().spawn(CancellationToken::new());
    let enough = gatehouse_kit::testing::eventually(Duration::from_secs(20), || async {
        (sink.received().len() >= 10).then_some(())
    })
    .await;
    assert!(enough.is_some(), "the first mailer sent 10 mails");
    first.abort();
    let _ = first.await;

    let shutdown = CancellationToken::new();
    let _second = mailer().spawn(shutdown.clone());
    let all_sent = gatehouse_kit::testing::eventually(Duration::from_secs(30), || async {
        let (sent,): (i64,) = query("SELECT COUNT(*) FROM mails WHERE status = 'sent'")
            .fetch_one(&db)
            .await
            .unwrap();
        (sent == MAILS as i64).then_some(())
    })
    .await;
    shutdown.cancel();
    if all_sent.is_none() {
        let rows: Vec<(String, String, i32, Option<String>)> = query(
            "SELECT id, status, attempts, last_error FROM mails WHERE status <> 'sent' ORDER BY id",
        )
        .fetch_all(&db)
        .await
        .unwrap();
        let activity: Vec<(Option<String>, Option<String>, Option<String>)> = if backend
            == Backend::Postgres
        {
            query("SELECT state, wait_event_type, query FROM pg_stat_activity WHERE datname = current_database()")
                .fetch_all(&db)
                .await
                .unwrap()
        } else {
            Vec::new()
        };
        panic!("not every mail went out after the restart: {rows:?}\nactivity: {activity:#?}");
    }
    let mut copies: HashMap<String, usize> = HashMap::new();
    for mail in sink.received() {
        *copies.entry(mail.message_id).or_default() += 1;
    }
    assert_eq!(copies.len(), MAILS, "every mail arrived");
    let again: usize = copies.values().map(|n| n - 1).sum();
    assert!(
        again <= CONCURRENCY,
        "{again} mails sent twice: at most the {CONCURRENCY} in flight when it died may be"
    );
    sink.stop().await;
}

/// A mail the server accepted while the mail log was away for a moment (PostgreSQL
/// restarting) is recorded once the log is back, not sent again when its claim runs out.
#[tokio::test]
async fn a_mail_sent_while_the_log_is_away_is_recorded_once_it_is_back_not_sent_again() {
    use gatehouse_kit::config::Env;
    use gatehouse_kit::db::{Db, query};
    use gatehouse_kit::testing::{TestDb, ToggleProxy, postgres_target, postgres_url_through};
    use gatehouse_mailer::config::MailerConfig;
    use gatehouse_mailer::delivery::{Delivery, store, transport::Transport};
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    let port = free_port();
    // The server takes a second over the mail: the log goes away meanwhile.
    let sink = SmtpSink::start_with(port, temp_dir("log-away"), &["--delay", "1"]).await;
    let database = TestDb::new(Backend::Postgres).await;
    database.connect(&gatehouse_mailer::MIGRATIONS).await;
    let proxy = ToggleProxy::start(&postgres_target(&database.url)).await;
    let db = Db::connect(
        &postgres_url_through(&database.url, proxy.addr),
        2,
        &gatehouse_mailer::MIGRATIONS,
    )
    .await
    .unwrap();
    let mut tx = db.begin().await.unwrap();
    store::insert(
        &mut tx,
        &store::NewMail {
            id: "mail-away",
            recipient: "ada@example.com",
            kind: "reset-password",
            language: 3,
            subject: "Reset",
            text_body: "text",
            html_body: "<p>html</p>",
            now: gatehouse_kit::ids::now(),
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let url = format!("smtp://127.0.0.1:{port}");
    let env = Env::from_pairs([("MAIL_URL", url.as_str())]);
    let mut config = MailerConfig::from_env(&env, "/nonexistent").unwrap();
    config.claim_lease = Duration::from_secs(4);
    let shutdown = CancellationToken::new();
    let _delivery = Delivery {
        db: db.clone(),
        transport: Transport::from_url(&config.mail_url, 1, None).unwrap(),
        config,
        queued: Arc::new(tokio::sync::Notify::new()),
    }
    .spawn(shutdown.clone());

    tokio::time::sleep(Duration::from_millis(400)).await;
    proxy.cut();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    proxy.restore();
    let sent = gatehouse_kit::testing::eventually(Duration::from_secs(15), || async {
        let status: Option<(String,)> = query("SELECT status FROM mails WHERE id = 'mail-away'")
            .fetch_optional(&db)
            .await
            .ok()?;
        status.filter(|(status,)| status == "sent").map(|_| ())
    })
    .await;
    assert!(sent.is_some(), "recorded as sent once the log was back");
    // Past the claim's lease: a mail whose record was lost would have gone out again.
    tokio::time::sleep(Duration::from_secs(6)).await;
    shutdown.cancel();
    assert_eq!(sink.received().len(), 1, "sent once");
    sink.stop().await;
}
