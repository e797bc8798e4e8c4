//! How fast one endpoint is sent to: never more than `BILLING_WEBHOOK_ENDPOINT_CONCURRENCY`
//! attempts at once — replays and test events included — and, within that, as fast as it
//! answers: a backlog drains at its concurrency ÷ its answer time, not a few claims per
//! scheduler tick, and retries come on their schedule however many are due together.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gatehouse_billing_webhook::delivery::store;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::testing::eventually;
use gatehouse_proto::billing_webhook::v1 as pb;
use rstest::rstest;
use tokio::sync::watch;

use crate::fan_out::{FAST, PLATFORM, endpoints, register};
use crate::support::{Billing, delivery, fixture};

/// A real HTTP receiver that counts the requests in flight and the most it saw at once; while
/// its gate is closed it holds every request, else it answers `status` after `delay`.
#[derive(Clone)]
struct Gate {
    open: Arc<watch::Sender<bool>>,
    status: u16,
    delay: Duration,
    seen: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl Gate {
    fn new(status: u16, delay: Duration) -> Self {
        Self {
            open: Arc::new(watch::Sender::new(true)),
            status,
            delay,
            seen: Arc::default(),
            in_flight: Arc::default(),
            most: Arc::default(),
        }
    }

    async fn serve(&self) -> String {
        async fn take(
            axum::extract::State(gate): axum::extract::State<Gate>,
        ) -> axum::http::StatusCode {
            gate.seen.fetch_add(1, Ordering::SeqCst);
            let now = gate.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            gate.most.fetch_max(now, Ordering::SeqCst);
            let mut open = gate.open.subscribe();
            let _ = open.wait_for(|open| *open).await;
            tokio::time::sleep(gate.delay).await;
            gate.in_flight.fetch_sub(1, Ordering::SeqCst);
            axum::http::StatusCode::from_u16(gate.status).unwrap()
        }
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(take))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }
}

/// FAST with these settings instead of its own.
fn settings<'a>(changes: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    FAST.iter()
        .copied()
        .filter(|(name, _)| !changes.iter().any(|(changed, _)| changed == name))
        .chain(changes.iter().copied())
        .collect()
}

async fn count(billing: &Billing, sql: &'static str, endpoint_id: &str) -> i64 {
    let (n,): (i64,) = query(sql)
        .bind(endpoint_id)
        .fetch_one(&billing.db)
        .await
        .unwrap();
    n
}

/// `n` stored events, each with a delivery to `endpoint_id` that has made `attempts`
/// attempts and is due now: what a receiver's outage leaves behind.
async fn backlog(billing: &Billing, endpoint_id: &str, n: usize, attempts: i32) {
    let now = gatehouse_kit::ids::now();
    let body = fixture("order.paid");
    for i in 0..n {
        let event_id = format!("ev_backlog_{i}");
        query(
            "INSERT INTO received_events (id, webhook_id, event_type, body, received_at) \
             VALUES ($1, $2, 'order.paid', $3, $4)",
        )
        .bind(event_id.as_str())
        .bind(format!("wh_backlog_{i}"))
        .bind(body.clone())
        .bind(now)
        .execute(&billing.db)
        .await
        .unwrap();
        query(
            "INSERT INTO deliveries (id, event_id, endpoint_id, status, attempts, \
             next_attempt_at, created_at) VALUES ($1, $2, $3, 'pending', $4, $5, $6)",
        )
        .bind(format!("msg_backlog_{i}"))
        .bind(event_id.as_str())
        .bind(endpoint_id)
        .bind(attempts)
        .bind(now - chrono::TimeDelta::seconds(1))
        .bind(now)
        .execute(&billing.db)
        .await
        .unwrap();
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn replays_and_test_events_wait_for_their_endpoints_room(#[case] backend: Backend) {
    let billing = Billing::start_with(
        backend,
        &settings(&[("BILLING_WEBHOOK_ENDPOINT_CONCURRENCY", "2")]),
    )
    .await;
    let manage = endpoints(&billing, &[]);
    let gate = Gate::new(204, Duration::ZERO);
    let endpoint = register(&manage, PLATFORM, &gate.serve().await, &[]).await;
    const EVENTS: i64 = 6;
    for n in 0..EVENTS {
        billing
            .receive(delivery(&format!("wh_room_{n}"), &fixture("order.paid")))
            .await
            .unwrap();
    }
    let delivered =
        "SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'delivered'";
    eventually(Duration::from_secs(15), || async {
        (count(&billing, delivered, &endpoint.id).await == EVENTS).then_some(())
    })
    .await
    .expect("every event delivered");
    assert!(gate.most.load(Ordering::SeqCst) <= 2, "{backend:?}");
    let before = gate.seen.load(Ordering::SeqCst);

    // The receiver now holds what it gets: every delivery is replayed, and two test events sent.
    gate.open.send_replace(false);
    let an_hour_ago = chrono::Utc::now().timestamp_millis() - 3_600_000;
    let replayed = billing
        .deliveries
        .clone()
        .replay_range(pb::ReplayRangeRequest {
            organization_id: PLATFORM.into(),
            since_unix_ms: an_hour_ago,
            include_delivered: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .replayed;
    assert_eq!(i64::from(replayed), EVENTS, "{backend:?}");
    for _ in 0..2 {
        manage.send_test(PLATFORM, &endpoint.id).await.unwrap();
    }
    eventually(Duration::from_secs(10), || async {
        (gate.in_flight.load(Ordering::SeqCst) >= 2).then_some(())
    })
    .await
    .expect("the endpoint is sent its share");
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(
        (
            gate.in_flight.load(Ordering::SeqCst),
            gate.most.load(Ordering::SeqCst)
        ),
        (2, 2),
        "{backend:?}: eight owed, two at once"
    );

    // Let go, every one of them is sent, still two at a time.
    gate.open.send_replace(true);
    let manual =
        "SELECT COUNT(*) FROM delivery_attempts WHERE endpoint_id = $1 AND trigger = 'manual'";
    eventually(Duration::from_secs(20), || async {
        (count(&billing, manual, &endpoint.id).await == EVENTS
            && count(&billing, delivered, &endpoint.id).await == EVENTS + 2)
            .then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: replays or test events were lost"));
    assert_eq!(gate.seen.load(Ordering::SeqCst), before + 8, "{backend:?}");
    assert_eq!(gate.most.load(Ordering::SeqCst), 2, "{backend:?}");
}

/// A scheduler tick long enough to count in: a full second.
const TICK_MS: &str = "1000";

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_backlog_drains_as_fast_as_its_endpoint_answers(#[case] backend: Backend) {
    let billing = Billing::start_with(
        backend,
        &settings(&[
            ("BILLING_WEBHOOK_ENDPOINT_CONCURRENCY", "2"),
            ("BILLING_WEBHOOK_SCHEDULER_TICK_MS", TICK_MS),
        ]),
    )
    .await;
    let manage = endpoints(&billing, &[]);
    // A receiver back from an outage, answering in about 5 ms.
    let gate = Gate::new(204, Duration::from_millis(5));
    let endpoint = register(&manage, PLATFORM, &gate.serve().await, &[]).await;
    const OWED: usize = 40;
    backlog(&billing, &endpoint.id, OWED, 1).await;

    let delivered =
        "SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'delivered'";
    eventually(Duration::from_secs(40), || async {
        (count(&billing, delivered, &endpoint.id).await == OWED as i64).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: the backlog did not drain"));
    // Two a tick would take 20 ticks; as fast as it answers, a fraction of one. A quarter of
    // the 20 leaves room for any machine.
    let (first, last): (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) = query(
        "SELECT MIN(started_at), MAX(started_at) FROM delivery_attempts WHERE endpoint_id = $1",
    )
    .bind(endpoint.id.as_str())
    .fetch_one(&billing.db)
    .await
    .unwrap();
    let span = (last - first).num_milliseconds();
    assert!(
        span < 5_000,
        "{backend:?}: {OWED} attempts took {span} ms, about 2 per tick"
    );
    assert_eq!(
        gate.most.load(Ordering::SeqCst),
        2,
        "{backend:?}: within its limit"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn retries_due_together_come_on_their_schedule(#[case] backend: Backend) {
    // Every attempt fails at once; each delivery's retries are due 3 s after its last attempt.
    let billing = Billing::start_with(
        backend,
        &settings(&[
            ("BILLING_WEBHOOK_ENDPOINT_CONCURRENCY", "2"),
            ("BILLING_WEBHOOK_SCHEDULER_TICK_MS", "500"),
            ("BILLING_WEBHOOK_RETRY_SCHEDULE", "3,3"),
        ]),
    )
    .await;
    let manage = endpoints(&billing, &[]);
    let gate = Gate::new(500, Duration::from_millis(5));
    let endpoint = register(&manage, PLATFORM, &gate.serve().await, &[]).await;
    const OWED: usize = 40;
    backlog(&billing, &endpoint.id, OWED, 0).await;

    let failed = "SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'failed'";
    eventually(Duration::from_secs(60), || async {
        (count(&billing, failed, &endpoint.id).await == OWED as i64).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: the schedule was not spent"));
    // Each retry within the schedule's ±20 %, plus a tick and a second for a slow machine.
    let (earliest, latest) = (2_400, 3_600 + 500 + 1_000);
    let mut late = Vec::new();
    for i in 0..OWED {
        let attempts = store::attempts(&billing.db, &format!("msg_backlog_{i}"))
            .await
            .unwrap();
        assert_eq!(attempts.len(), 3, "{backend:?}");
        for pair in attempts.windows(2) {
            let gap = (pair[1].started_at - pair[0].started_at).num_milliseconds();
            assert!(
                gap >= earliest,
                "{backend:?}: a retry {gap} ms after its attempt"
            );
            if gap > latest {
                late.push(gap);
            }
        }
    }
    assert!(
        late.is_empty(),
        "{backend:?}: {} of {} retries late: {late:?} ms after their attempt",
        late.len(),
        OWED * 2
    );
    assert_eq!(
        gate.most.load(Ordering::SeqCst),
        2,
        "{backend:?}: within its limit"
    );
}
