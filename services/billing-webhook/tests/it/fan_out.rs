//! The fan-out through a real part: a delivery taken in by the intake reaches sellers'
//! endpoints — real HTTP receivers here — signed with Standard Webhooks (verified by the
//! `standardwebhooks` crate), its body byte for byte, retried on the schedule, recorded
//! attempt by attempt; private destinations refused when connecting; one slow endpoint holding
//! up no other.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use gatehouse_billing_webhook::config::FanOutConfig;
use gatehouse_billing_webhook::delivery::store::{self, status};
use gatehouse_billing_webhook::endpoint::manage::Endpoints;
use gatehouse_billing_webhook::endpoint::{Endpoint, Registrant, Settings};
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::testing::eventually;
use rstest::rstest;
use tokio::sync::Notify;

use crate::support::{Billing, delivery, fixture};

pub(crate) const PLATFORM: &str = "org_platform";

/// What every part in these tests runs with: a fast schedule, loopback allowed.
pub(crate) const FAST: &[(&str, &str)] = &[
    ("POLAR_WEBHOOK_SECRET", crate::support::SECRET),
    ("BILLING_WEBHOOK_RETRY_SCHEDULE", "0.05,0.05,0.05"),
    ("BILLING_WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8"),
    ("BILLING_WEBHOOK_PLATFORM_ORGANIZATIONS", PLATFORM),
    ("BILLING_WEBHOOK_ATTEMPT_TIMEOUT_SECS", "5"),
    ("BILLING_WEBHOOK_SCHEDULER_TICK_MS", "20"),
];

pub(crate) fn endpoints(billing: &Billing, settings: &[(&str, &str)]) -> Endpoints {
    let env = Env::from_pairs(FAST.iter().chain(settings).copied());
    Endpoints::new(billing.db.clone(), FanOutConfig::from_env(&env).unwrap())
}

/// A request as the receiver saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// A real HTTP receiver answering from a script of statuses (then 204), recording each
/// request; `hold` makes it wait before answering until notified.
#[derive(Clone, Default)]
pub(crate) struct Receiver {
    seen: Arc<Mutex<Vec<Seen>>>,
    script: Arc<Mutex<VecDeque<u16>>>,
    hold: Option<Arc<Notify>>,
    /// While set, every request is answered 503 (and not kept).
    pub(crate) down: Arc<std::sync::atomic::AtomicBool>,
}

impl Receiver {
    pub(crate) fn answering(statuses: &[u16]) -> Self {
        Self {
            script: Arc::new(Mutex::new(statuses.iter().copied().collect())),
            ..Self::default()
        }
    }

    /// Serves on loopback; the URL to register.
    pub(crate) async fn serve(&self) -> String {
        async fn take(
            State(receiver): State<Receiver>,
            headers: HeaderMap,
            body: Bytes,
        ) -> StatusCode {
            if receiver.down.load(std::sync::atomic::Ordering::SeqCst) {
                return StatusCode::SERVICE_UNAVAILABLE;
            }
            receiver.seen.lock().unwrap().push(Seen { headers, body });
            if let Some(hold) = &receiver.hold {
                hold.notified().await;
            }
            let next = receiver.script.lock().unwrap().pop_front().unwrap_or(204);
            StatusCode::from_u16(next).unwrap()
        }
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(take))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Who registers the tests' endpoints: a German speaker.
pub(crate) fn registrant() -> Registrant {
    Registrant {
        email: "owner@example.com".into(),
        name: "Olga Owner".into(),
        language: gatehouse_kit::language::Language::German.code(),
    }
}

pub(crate) async fn register(
    manage: &Endpoints,
    organization: &str,
    url: &str,
    types: &[&str],
) -> Endpoint {
    manage
        .create(
            organization,
            registrant(),
            Settings {
                url: Some(url.into()),
                event_types: Some(types.iter().map(|t| t.to_string()).collect()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
}

/// The endpoint's one delivery once it is no longer pending.
pub(crate) async fn settled(billing: &Billing, endpoint_id: &str) -> (String, String, i32) {
    eventually(Duration::from_secs(15), || async {
        let row: Option<(String, String, i32)> = query(
            "SELECT id, status, attempts FROM deliveries WHERE endpoint_id = $1 AND status <> 'pending'",
        )
        .bind(endpoint_id)
        .fetch_optional(&billing.db)
        .await
        .unwrap();
        row
    })
    .await
    .unwrap_or_else(|| panic!("no settled delivery for {endpoint_id}"))
}

pub(crate) fn verify(secret: &str, seen: &Seen) {
    standardwebhooks::Webhook::new(secret)
        .unwrap()
        .verify(&seen.body, &seen.headers)
        .unwrap_or_else(|e| panic!("our delivery does not verify: {e:?}"));
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_event_is_signed_sent_retried_and_recorded_until_delivered(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let receiver = Receiver::answering(&[500, 503]);
    let endpoint = register(&manage, PLATFORM, &receiver.serve().await, &[]).await;
    let body = fixture("order.paid");
    billing.receive(delivery("wh_fan_1", &body)).await.unwrap();

    let (delivery_id, final_status, attempts) = settled(&billing, &endpoint.id).await;
    assert_eq!(
        (final_status.as_str(), attempts),
        (status::DELIVERED, 3),
        "{backend:?}"
    );
    let seen = receiver.seen();
    assert_eq!(seen.len(), 3, "{backend:?}: two failures, then success");
    for request in &seen {
        assert_eq!(
            request.body, body,
            "{backend:?}: the body as received, byte for byte"
        );
        assert_eq!(request.headers["webhook-id"], delivery_id.as_str());
        assert_eq!(request.headers["content-type"], "application/json");
        verify(&endpoint.secret, request);
    }
    let attempts = store::attempts(&billing.db, &delivery_id).await.unwrap();
    let codes: Vec<Option<i32>> = attempts.iter().map(|a| a.response_status).collect();
    assert_eq!(codes, [Some(500), Some(503), Some(204)], "{backend:?}");
    assert!(attempts.iter().all(|a| a.trigger == "scheduled"));
    assert_eq!(
        attempts.iter().map(|a| a.succeeded).collect::<Vec<_>>(),
        [false, false, true]
    );

    // The intake's retry of the same webhook fans out nothing more.
    billing.receive(delivery("wh_fan_1", &body)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        receiver.seen().len(),
        3,
        "{backend:?}: once per stored event"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn events_reach_only_their_organization_and_the_types_asked_for(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let (mine, theirs, filtered) = (
        Receiver::default(),
        Receiver::default(),
        Receiver::default(),
    );
    let mine_endpoint = register(&manage, "org_a", &mine.serve().await, &[]).await;
    register(&manage, "org_b", &theirs.serve().await, &[]).await;
    register(
        &manage,
        PLATFORM,
        &filtered.serve().await,
        &["order.refunded"],
    )
    .await;

    let mut order: serde_json::Value = serde_json::from_slice(&fixture("order.paid")).unwrap();
    order["data"]["metadata"] = serde_json::json!({"referenceId": "org_a"});
    let body = serde_json::to_vec(&order).unwrap();
    billing
        .receive(delivery("wh_fan_org", &body))
        .await
        .unwrap();

    settled(&billing, &mine_endpoint.id).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        mine.seen().len(),
        1,
        "{backend:?}: the organization it names"
    );
    assert!(
        theirs.seen().is_empty(),
        "{backend:?}: never another organization"
    );
    assert!(
        filtered.seen().is_empty(),
        "{backend:?}: a type it did not ask for"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn private_destinations_are_refused_when_registering_and_when_connecting(
    #[case] backend: Backend,
) {
    // This part allows no private range.
    let strict: &[(&str, &str)] = &[
        ("POLAR_WEBHOOK_SECRET", crate::support::SECRET),
        ("BILLING_WEBHOOK_RETRY_SCHEDULE", "0.05"),
        ("BILLING_WEBHOOK_PLATFORM_ORGANIZATIONS", PLATFORM),
    ];
    let billing = Billing::start_with(backend, strict).await;
    let manage = Endpoints::new(
        billing.db.clone(),
        FanOutConfig::from_env(&Env::from_pairs(strict.iter().copied())).unwrap(),
    );
    let receiver = Receiver::default();
    let url = receiver.serve().await;
    for literal in [
        url.clone(),
        "http://10.0.0.7/hook".into(),
        "http://[::1]/hook".into(),
    ] {
        let refused = manage
            .create(
                PLATFORM,
                registrant(),
                Settings {
                    url: Some(literal.clone()),
                    ..Default::default()
                },
            )
            .await
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("refused: ENDPOINT_URL_NOT_ALLOWED (400)"),
            "{backend:?}: {literal}: {refused}"
        );
    }
    // A name is only resolved when connecting: `localhost` passes registration, then every
    // attempt is refused before any connection. So is a name that resolves to nothing, and
    // an internal address written in before the rule existed.
    let by_name = url.replace("127.0.0.1", "localhost");
    let endpoint = register(&manage, PLATFORM, &by_name, &[]).await;
    let nowhere = register(
        &manage,
        PLATFORM,
        "http://gatehouse-nowhere.invalid/hook",
        &[],
    )
    .await;
    let literal = register(&manage, PLATFORM, "http://hooks.example.com/hook", &[]).await;
    query("UPDATE endpoints SET url = 'http://10.0.0.7/hook' WHERE id = $1")
        .bind(literal.id.as_str())
        .execute(&billing.db)
        .await
        .unwrap();
    billing
        .receive(delivery("wh_fan_ssrf", &fixture("order.paid")))
        .await
        .unwrap();
    let mut errors = Vec::new();
    for endpoint in [&endpoint, &nowhere, &literal] {
        let (delivery_id, final_status, attempts) = settled(&billing, &endpoint.id).await;
        assert_eq!((final_status.as_str(), attempts), (status::FAILED, 2));
        let recorded = store::attempts(&billing.db, &delivery_id).await.unwrap();
        errors.extend(recorded.into_iter().map(|a| a.error.unwrap_or_default()));
    }
    assert!(
        receiver.seen().is_empty(),
        "{backend:?}: nothing reached it"
    );
    // What the organization reads does not tell an internal name from one that does not
    // resolve, nor name either: one refusal for all.
    assert!(
        errors.iter().all(|error| error == &errors[0]),
        "{backend:?}: {errors:#?}"
    );
    for detail in ["localhost", "invalid", "10.0.0.7", "private", "loopback"] {
        assert!(!errors[0].contains(detail), "{backend:?}: {}", errors[0]);
    }
    assert!(!errors[0].is_empty());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_slow_endpoint_holds_up_no_other(#[case] backend: Backend) {
    // Four attempts at once in all, two per endpoint: the slow endpoint would take every
    // slot with the first four of its twelve deliveries if nothing held it to its share.
    let settings: Vec<(&str, &str)> = FAST
        .iter()
        .copied()
        .chain([
            ("BILLING_WEBHOOK_DELIVERY_CONCURRENCY", "4"),
            ("BILLING_WEBHOOK_ENDPOINT_CONCURRENCY", "2"),
        ])
        .collect();
    let billing = Billing::start_with(backend, &settings).await;
    let manage = endpoints(&billing, &[]);
    let release = Arc::new(Notify::new());
    let slow = Receiver {
        hold: Some(release.clone()),
        ..Receiver::default()
    };
    let fast = Receiver::default();
    let slow_endpoint = register(&manage, PLATFORM, &slow.serve().await, &[]).await;
    let fast_endpoint = register(&manage, PLATFORM, &fast.serve().await, &[]).await;
    const EVENTS: i64 = 12;
    for n in 0..EVENTS {
        let id = format!("wh_fan_slow_{n}");
        billing
            .receive(delivery(&id, &fixture("order.paid")))
            .await
            .unwrap();
    }
    let delivered_to = |endpoint_id: String| {
        let db = billing.db.clone();
        async move {
            let (n,): (i64,) = query(
                "SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'delivered'",
            )
            .bind(endpoint_id.as_str())
            .fetch_one(&db)
            .await
            .unwrap();
            n
        }
    };
    // Every event reaches the fast endpoint while the slow one holds its first requests.
    let delivered = eventually(Duration::from_secs(10), || async {
        (delivered_to(fast_endpoint.id.clone()).await == EVENTS).then_some(())
    })
    .await;
    assert!(delivered.is_some(), "{backend:?}: the fast endpoint waited");
    assert_eq!(
        slow.seen().len(),
        2,
        "{backend:?}: the slow one is tried with its share only"
    );
    // Released, the slow endpoint gets every one of its deliveries too.
    let all_slow = eventually(Duration::from_secs(30), || async {
        release.notify_waiters();
        (delivered_to(slow_endpoint.id.clone()).await == EVENTS).then_some(())
    })
    .await;
    assert!(
        all_slow.is_some(),
        "{backend:?}: the slow endpoint's deliveries were lost"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_endpoint_failing_too_long_is_disabled_and_its_deliveries_skipped(
    #[case] backend: Backend,
) {
    // Disabled as soon as a failure comes after the first (0 hours of patience).
    let settings: Vec<(&str, &str)> = FAST
        .iter()
        .copied()
        .chain([("BILLING_WEBHOOK_DISABLE_AFTER_HOURS", "0")])
        .collect();
    let billing = Billing::start_with(backend, &settings).await;
    let manage = endpoints(&billing, &[("BILLING_WEBHOOK_DISABLE_AFTER_HOURS", "0")]);
    let receiver = Receiver::answering(&[500, 500, 500, 500, 500]);
    let endpoint = register(&manage, PLATFORM, &receiver.serve().await, &[]).await;
    billing
        .receive(delivery("wh_fan_fail", &fixture("order.paid")))
        .await
        .unwrap();
    let (_, final_status, _) = settled(&billing, &endpoint.id).await;
    // The second failure disabled the endpoint: the rest of the schedule is skipped.
    assert_eq!(final_status, status::SKIPPED, "{backend:?}");
    assert_eq!(receiver.seen().len(), 2, "{backend:?}");
    let disabled = manage.get(PLATFORM, &endpoint.id).await.unwrap();
    assert!(!disabled.enabled, "{backend:?}");
    assert!(
        disabled
            .disabled_reason
            .unwrap()
            .starts_with("Every delivery failed for 0 hours")
    );
    // Its registrant is told, once, by mail in their language (what reached the mailer's queue).
    use gatehouse_proto::events::v1::MailKind;
    let mails = billing.mailbox.0.lock().unwrap().clone();
    assert_eq!(mails.len(), 1, "{backend:?}");
    let mail = &mails[0];
    assert_eq!(mail.kind(), MailKind::EndpointDisabled);
    assert_eq!(
        (mail.to.as_str(), mail.name.as_str()),
        ("owner@example.com", "Olga Owner")
    );
    assert_eq!(
        mail.language,
        gatehouse_kit::language::Language::German.code()
    );
    assert_eq!(mail.params["url"], endpoint.url);

    // Enabled again, it starts afresh.
    manage
        .update(
            PLATFORM,
            &endpoint.id,
            Settings {
                enabled: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let again = manage.get(PLATFORM, &endpoint.id).await.unwrap();
    assert!(again.enabled && again.failing_since.is_none() && again.disabled_reason.is_none());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_retry_owed_when_the_process_stopped_is_sent_from_the_database(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let receiver = Receiver::default();
    let endpoint = register(&manage, PLATFORM, &receiver.serve().await, &[]).await;
    // What a stop leaves behind: a stored event, its delivery failed once and due again a
    // second ago, and no message for it on any queue (the in-process bus kept none).
    let now = gatehouse_kit::ids::now();
    query(
        "INSERT INTO received_events (id, webhook_id, event_type, body, received_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind("ev_restart")
    .bind("wh_restart")
    .bind("order.paid")
    .bind(fixture("order.paid"))
    .bind(now)
    .execute(&billing.db)
    .await
    .unwrap();
    query(
        "INSERT INTO deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, \
         created_at) VALUES ($1, $2, $3, 'pending', 1, $4, $5)",
    )
    .bind("msg_restart")
    .bind("ev_restart")
    .bind(endpoint.id.as_str())
    .bind(now - chrono::TimeDelta::seconds(1))
    .bind(now)
    .execute(&billing.db)
    .await
    .unwrap();

    let (id, status, attempts) = settled(&billing, &endpoint.id).await;
    assert_eq!(
        (id.as_str(), status.as_str(), attempts),
        ("msg_restart", "delivered", 2),
        "{backend:?}"
    );
    let seen = receiver.seen();
    assert_eq!(seen.len(), 1, "{backend:?}: claimed once");
    assert_eq!(seen[0].headers["webhook-id"], "msg_restart");
    assert_eq!(seen[0].body, fixture("order.paid"));
}
