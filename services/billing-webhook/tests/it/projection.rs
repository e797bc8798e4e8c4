//! The projections through a real part: each stored delivery reaches the consumer through the
//! outbox and the bus, and leaves its entity's newest state filed, whatever order and however
//! often the events arrive.

use std::time::Duration;

use gatehouse_billing_webhook::projection::store::{self, Filed};
use gatehouse_kit::db::Backend;
use gatehouse_kit::testing::eventually;
use rstest::rstest;

use crate::support::{Billing, delivery, fixture};

const SUBSCRIPTION: &str = "a4c8fa0b-cdde-4eb1-8ad3-1cd35e7f9af3";
const CUSTOMER: &str = "5d0e6b2a-8c41-4f7e-b3a9-1e6f2c7d9a21";

/// The filed entity once its row was last set by `event_id`.
async fn filed_by(billing: &Billing, kind: &str, id: &str, event_id: &str) -> Filed {
    eventually(Duration::from_secs(10), || async {
        store::find(&billing.db, kind, id)
            .await
            .unwrap()
            .filter(|filed| filed.event_id == event_id)
    })
    .await
    .unwrap_or_else(|| panic!("{kind} {id} was not filed by event {event_id}"))
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_older_event_never_overwrites_newer_state(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    // The subscription's end arrives first, its start and activation after it.
    let revoked = billing
        .receive(delivery("msg_revoked", &fixture("subscription.revoked")))
        .await
        .unwrap();
    let filed = filed_by(&billing, "subscription", SUBSCRIPTION, &revoked.event_id).await;
    assert_eq!(filed.status.as_deref(), Some("canceled"));
    assert_eq!(filed.customer_id.as_deref(), Some(CUSTOMER));

    let active = billing
        .receive(delivery("msg_active", &fixture("subscription.active")))
        .await
        .unwrap();
    let created = billing
        .receive(delivery("msg_created", &fixture("subscription.created")))
        .await
        .unwrap();
    // A later event on the same queue is projected once both older ones were: a marker.
    let marker = billing
        .receive(delivery("msg_order", &fixture("order.paid")))
        .await
        .unwrap();
    filed_by(
        &billing,
        "order",
        "5fd3a5b6-d8e9-4f6c-9b8e-6d8e0f2a4bae",
        &marker.event_id,
    )
    .await;
    let filed = store::find(&billing.db, "subscription", SUBSCRIPTION)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        filed.event_id, revoked.event_id,
        "neither {} nor {} may win",
        active.event_id, created.event_id
    );
    assert_eq!(filed.status.as_deref(), Some("canceled"));
    let data: serde_json::Value = serde_json::from_str(&filed.data).unwrap();
    assert_eq!(data["id"], SUBSCRIPTION);
    assert!(
        data["ended_at"].is_string(),
        "the entity's JSON is kept as sent"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn newer_events_move_state_forward_and_a_replay_changes_nothing(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    let created = billing
        .receive(delivery("msg_1", &fixture("subscription.created")))
        .await
        .unwrap();
    let filed = filed_by(&billing, "subscription", SUBSCRIPTION, &created.event_id).await;
    assert_eq!(filed.status.as_deref(), Some("trialing"));
    let active = billing
        .receive(delivery("msg_2", &fixture("subscription.active")))
        .await
        .unwrap();
    filed_by(&billing, "subscription", SUBSCRIPTION, &active.event_id).await;

    // The same event under another webhook-id (a manual redelivery to a second endpoint):
    // stored again, projected, and the row keeps the event that set it.
    let again = billing
        .receive(delivery("msg_3", &fixture("subscription.active")))
        .await
        .unwrap();
    assert!(!again.duplicate);
    let marker = billing
        .receive(delivery("msg_4", &fixture("customer.state_changed")))
        .await
        .unwrap();
    let state = filed_by(&billing, "customer_state", CUSTOMER, &marker.event_id).await;
    assert_eq!(state.customer_id.as_deref(), Some(CUSTOMER));
    let filed = store::find(&billing.db, "subscription", SUBSCRIPTION)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(filed.event_id, active.event_id);
    assert_eq!(filed.status.as_deref(), Some("active"));
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn unknown_events_are_kept_but_file_nothing(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    let unknown = br#"{"type":"customer_seat.assigned","timestamp":"2026-11-01T08:00:00Z","data":{"id":"seat_1","customer_id":"c1"}}"#;
    billing
        .receive(delivery("msg_seat", unknown))
        .await
        .unwrap();
    let marker = billing
        .receive(delivery("msg_customer", &fixture("customer.created")))
        .await
        .unwrap();
    filed_by(&billing, "customer", CUSTOMER, &marker.event_id).await;
    let (rows,): (i64,) = gatehouse_kit::db::query("SELECT COUNT(*) FROM billing_entities")
        .fetch_one(&billing.db)
        .await
        .unwrap();
    assert_eq!(rows, 1, "only the customer is filed");
}
