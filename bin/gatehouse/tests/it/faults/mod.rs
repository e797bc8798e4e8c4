//! The fault suite: distributed mode (one process per part, PostgreSQL, Redis, RabbitMQ, a real
//! SMTP server, a seller's receiver) under steady traffic while, in turn, every part is
//! SIGKILLed and started again, the broker is unreachable for 11 s, PostgreSQL restarts, Redis
//! is unreachable for 10 s and the seller's receiver answers 503 for 20 s. Then nothing
//! acknowledged is lost: every sign-up is there, every reset asked for is mailed (at most the
//! mails in flight at the mailer's crash twice), every webhook stored is delivered; while a
//! part was down the answer was 503, never 401 or 500; retries came on their schedule.
//!
//! It breaks only what is its own (its PostgreSQL cluster, proxies in front of the shared
//! Redis and RabbitMQ, a RabbitMQ virtual host), and runs alone (`.config/nextest.toml`): its
//! processes take both cores.

mod cluster;
mod load;
mod stack;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::common::{PASSWORD, install_crypto};
use load::Load;
use stack::{MAIL_CONCURRENCY, RETRY_SCHEDULE, Receiver, SCHEDULER_TICK_MS, Stack};

/// The reference fixture `name`, compact.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../services/billing-webhook/tests/fixtures/polar/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::to_vec(&value).unwrap()
}

/// POSTs until the stack, still starting, answers something else than 503.
async fn post_when_up(
    http: &reqwest::Client,
    stack: &Stack,
    path: &str,
    body: serde_json::Value,
    cookie: Option<&str>,
) -> (u16, Option<String>, serde_json::Value) {
    for _ in 0..150 {
        let mut request = http
            .post(format!("{}{path}", stack.api))
            .header("origin", &stack.origin)
            .json(&body);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        if let Ok(response) = request.send().await
            && response.status() != 503
        {
            let status = response.status().as_u16();
            let cookie = response
                .headers()
                .get_all(reqwest::header::SET_COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find(|v| v.contains("session_token="))
                .and_then(|v| v.split(';').next())
                .map(str::to_string);
            return (status, cookie, response.json().await.unwrap_or_default());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{path}: the stack never answered\n{}", stack.logs());
}

/// Waits up to `within` for `done`; how long it took.
async fn waited_for(within: Duration, mut done: impl FnMut() -> bool) -> Option<Duration> {
    let started = std::time::Instant::now();
    while started.elapsed() < within {
        if done() {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distributed_mode_loses_nothing_through_crashes_and_outages() {
    install_crypto();
    let mut stack = Stack::start().await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();

    // A seller: an organization with an endpoint that takes its orders.
    let owner = format!(
        "owner-{}@example.com",
        gatehouse_kit::ids::random_alphanumeric(8).to_lowercase()
    );
    let (status, cookie, _) = post_when_up(
        &http,
        &stack,
        "/auth/sign-up/email",
        json!({"name": "Owner", "email": owner, "password": PASSWORD}),
        None,
    )
    .await;
    assert_eq!(status, 200, "{}", stack.logs());
    let cookie = cookie.expect("a session cookie");
    let (status, _, organization) = post_when_up(
        &http,
        &stack,
        "/auth/organization/create",
        json!({"name": "Seller", "slug": format!("seller-{}", gatehouse_kit::ids::random_alphanumeric(6).to_lowercase())}),
        Some(&cookie),
    )
    .await;
    assert_eq!(status, 200, "{organization}\n{}", stack.logs());
    let organization_id = organization["id"].as_str().unwrap().to_string();
    let receiver = Receiver::default();
    let url = receiver.serve().await;
    let (status, _, endpoint) = post_when_up(
        &http,
        &stack,
        "/billing/endpoints",
        json!({"url": url, "eventTypes": ["order.paid"]}),
        Some(&cookie),
    )
    .await;
    assert_eq!(status, 200, "{endpoint}");

    let load = Load::start(&stack.api, &stack.origin, 3, &organization_id);
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Every part SIGKILLed mid-traffic, and started again.
    for part in stack::parts() {
        let name = part.name;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        load.gateway_down(name == "gateway");
        stack.part(name).kill().await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        stack.part(name).restart().await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        load.gateway_down(false);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;

    // The broker unreachable for 11 s: events wait in the outboxes.
    stack.broker.cut();
    tokio::time::sleep(Duration::from_secs(11)).await;
    stack.broker.restore();
    tokio::time::sleep(Duration::from_secs(2)).await;

    // PostgreSQL restarted, as an operator does it.
    let pg = &stack.pg;
    tokio::task::block_in_place(|| pg.restart());
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Redis unreachable for 10 s: sessions are read from the databases.
    stack.redis.cut();
    tokio::time::sleep(Duration::from_secs(10)).await;
    stack.redis.restore();
    tokio::time::sleep(Duration::from_secs(2)).await;

    // The seller's receiver answers 503 for 20 s.
    let down_at = Utc::now();
    receiver.down.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(20)).await;
    receiver.down.store(false, Ordering::SeqCst);
    let up_at = Utc::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let record = load.stop().await;

    let answers = record.answers.lock().unwrap().clone();
    eprintln!("the fault suite's traffic was answered: {answers:?}");
    let violations = record.violations.lock().unwrap().clone();
    assert!(
        violations.is_empty(),
        "{} answers that should not be, the first: {:#?}\nanswers: {answers:#?}\n{}",
        violations.len(),
        violations.iter().take(10).collect::<Vec<_>>(),
        stack.logs()
    );
    // The faults were felt (or the suite proves nothing), and traffic went on between them.
    assert!(
        record.answered("sign-up", 503) + record.answered("sign-in", 503) > 0,
        "{answers:#?}"
    );
    assert!(record.answered("sign-up", 200) > 50, "{answers:#?}");

    // Every sign-up answered 200 is there, and its password works.
    let users = record.users.lock().unwrap().clone();
    let identity = gatehouse_kit::db::Db::connect(
        &stack.pg.url("identity"),
        2,
        &gatehouse_identity::MIGRATIONS,
    )
    .await
    .unwrap();
    let stored: HashSet<String> = gatehouse_kit::db::query("SELECT email FROM users")
        .fetch_all::<(String,)>(&identity)
        .await
        .unwrap()
        .into_iter()
        .map(|(email,)| email)
        .collect();
    let lost: Vec<&String> = users.iter().filter(|u| !stored.contains(*u)).collect();
    assert!(lost.is_empty(), "sign-ups answered 200 and lost: {lost:?}");
    for email in users.iter().step_by((users.len() / 10).max(1)) {
        let (status, _, _) = post_when_up(
            &http,
            &stack,
            "/auth/sign-in/email",
            json!({"email": email, "password": PASSWORD}),
            None,
        )
        .await;
        assert_eq!(status, 200, "{email} cannot sign in");
    }

    // Every reset answered 200 is mailed; a mail goes out twice only if it was in flight
    // when the mailer was killed.
    let resets = record.resets.lock().unwrap().clone();
    let mailed = waited_for(Duration::from_secs(90), || {
        let to: HashSet<String> = stack
            .smtp
            .received()
            .into_iter()
            .map(|(to, _)| to)
            .collect();
        resets.iter().all(|email| to.contains(email))
    })
    .await;
    let received = stack.smtp.received();
    let to: HashSet<&String> = received.iter().map(|(to, _)| to).collect();
    assert!(
        mailed.is_some(),
        "resets never mailed: {:?}",
        resets
            .iter()
            .filter(|e| !to.contains(e))
            .collect::<Vec<_>>()
    );
    let mut copies: HashMap<&String, usize> = HashMap::new();
    for (_, message_id) in &received {
        *copies.entry(message_id).or_default() += 1;
    }
    let twice: usize = copies.values().map(|n| n - 1).sum();
    assert!(
        twice <= MAIL_CONCURRENCY,
        "{twice} mails sent again; one crash may repeat at most the {MAIL_CONCURRENCY} in flight"
    );

    // Every webhook stored is delivered to the seller.
    let webhooks = record.webhooks.lock().unwrap().clone();
    assert!(!webhooks.is_empty(), "{answers:#?}");
    let delivered = waited_for(Duration::from_secs(90), || {
        let received: HashSet<String> = receiver.received.lock().unwrap().iter().cloned().collect();
        webhooks.iter().all(|id| received.contains(id))
    })
    .await;
    let seen: HashSet<String> = receiver.received.lock().unwrap().iter().cloned().collect();
    assert!(
        delivered.is_some(),
        "stored webhooks never delivered: {:?}\n{}",
        webhooks
            .iter()
            .filter(|id| !seen.contains(*id))
            .collect::<Vec<_>>(),
        stack.logs()
    );

    eprintln!(
        "{} sign-ups, {} resets ({} mails, {twice} twice), {} webhooks delivered",
        users.len(),
        resets.len(),
        received.len(),
        webhooks.len()
    );
    // The retries during the receiver's outage came on the schedule (±20 %, plus a tick).
    check_retry_schedule(&stack, down_at, up_at).await;
}

/// Each retry of a delivery that failed while the receiver was down came its schedule's delay
/// after the attempt before (±20 %, plus at most a scheduler tick and a little slack).
async fn check_retry_schedule(stack: &Stack, down_at: DateTime<Utc>, up_at: DateTime<Utc>) {
    use sqlx::Connection as _;
    let mut billing = sqlx::PgConnection::connect(&stack.pg.url("billing_webhook"))
        .await
        .unwrap();
    let attempts: Vec<(String, DateTime<Utc>, bool, String)> = sqlx::query_as(
        "SELECT delivery_id, started_at, succeeded, trigger FROM delivery_attempts \
         ORDER BY delivery_id, started_at",
    )
    .fetch_all(&mut billing)
    .await
    .unwrap();
    let mut by_delivery: HashMap<String, Vec<(DateTime<Utc>, bool, String)>> = HashMap::new();
    for (delivery, started, succeeded, trigger) in attempts {
        by_delivery
            .entry(delivery)
            .or_default()
            .push((started, succeeded, trigger));
    }
    let slack = Duration::from_millis(SCHEDULER_TICK_MS) + Duration::from_millis(750);
    let (mut checked, mut off) = (0, Vec::new());
    for (delivery, attempts) in &by_delivery {
        for (index, pair) in attempts.windows(2).enumerate() {
            let ((before, succeeded, trigger), (after, _, _)) = (&pair[0], &pair[1]);
            // Only retries owed while the receiver alone was failing.
            if *succeeded || trigger != "scheduled" || *before < down_at || *before > up_at {
                continue;
            }
            let Some(delay) = RETRY_SCHEDULE.get(index) else {
                continue;
            };
            let gap = (*after - *before)
                .to_std()
                .unwrap_or_default()
                .as_secs_f64();
            let (low, high) = (delay * 0.8 - 0.05, delay * 1.2 + slack.as_secs_f64());
            checked += 1;
            if gap < low || gap > high {
                off.push(format!(
                    "{delivery}: retry {} came {gap:.2} s after, its delay {delay} s",
                    index + 1
                ));
            }
        }
    }
    assert!(
        checked > 0,
        "no retry during the receiver's outage was checked"
    );
    assert!(
        off.is_empty(),
        "{} of {checked} retries off their schedule: {:#?}",
        off.len(),
        off.iter().take(10).collect::<Vec<_>>()
    );
}
