//! The intake through a real part: verified deliveries are stored byte for byte and once per
//! `webhook-id`; refusals carry the reference libraries' messages and store nothing.

use gatehouse_billing_webhook::intake::store;
use gatehouse_kit::db::Backend;
use gatehouse_kit::errors::{Failure, billing};
use rstest::rstest;

use crate::support::{Billing, SECRET, delivery, fixture, now, sign};

fn refusal(result: Result<impl std::fmt::Debug, tonic::Status>) -> Failure {
    Failure::from_status(&result.expect_err("refused"))
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_verified_delivery_is_stored_byte_for_byte_once_per_webhook_id(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    let body = fixture("order.paid");
    let first = billing
        .receive(delivery("msg_order_paid", &body))
        .await
        .unwrap();
    assert!(!first.duplicate);
    assert_eq!(first.event_type, "order.paid");

    let stored = store::find(&billing.db, &first.event_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.body, body, "the body is kept exactly as received");
    assert_eq!(stored.webhook_id, "msg_order_paid");
    assert_eq!(stored.event_type, "order.paid");
    assert_eq!(stored.api_version.as_deref(), Some("2026-04"));
    assert_eq!(
        stored.event_timestamp.map(|t| t.to_rfc3339()),
        Some("2026-09-14T10:21:37.004512+00:00".into())
    );

    // The sender's retry (new timestamp, new signature, same id and bytes) stores nothing.
    let retry = billing
        .receive(delivery("msg_order_paid", &body))
        .await
        .unwrap();
    assert!(retry.duplicate);
    assert_eq!(retry.event_id, first.event_id);
    assert_eq!(store::count(&billing.db).await.unwrap(), 1);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn concurrent_deliveries_of_one_webhook_id_store_one_event(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    let body = fixture("subscription.active");
    billing
        .receive(delivery("msg_warmup", &fixture("customer.created")))
        .await
        .unwrap();
    let all = futures_util::future::join_all(
        (0..8).map(|_| billing.receive(delivery("msg_sub_active", &body))),
    )
    .await;
    let answers: Vec<_> = all.into_iter().map(Result::unwrap).collect();
    assert_eq!(answers.iter().filter(|a| !a.duplicate).count(), 1);
    assert!(answers.iter().all(|a| a.event_id == answers[0].event_id));
    assert_eq!(store::count(&billing.db).await.unwrap(), 2);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn unknown_and_unreadable_events_are_stored_and_acknowledged(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    let unknown = br#"{"type":"customer_seat.assigned","timestamp":"2026-11-01T08:00:00Z","data":{"id":"seat_1"}}"#;
    let answer = billing
        .receive(delivery("msg_seat", unknown))
        .await
        .unwrap();
    assert_eq!(answer.event_type, "customer_seat.assigned");
    // Signed by the sender, but not an envelope we can read: kept, not refused (a refusal
    // would only make the sender retry it for half an hour).
    let odd = br#"["not", "an", "envelope"]"#;
    let answer = billing.receive(delivery("msg_odd", odd)).await.unwrap();
    assert_eq!(answer.event_type, "");
    let stored = store::find(&billing.db, &answer.event_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.body, odd.to_vec());
    assert_eq!(stored.event_timestamp, None);
    assert_eq!(store::count(&billing.db).await.unwrap(), 2);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn refused_deliveries_store_nothing(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    let body = fixture("refund.created");
    let good = delivery("msg_refund", &body);

    let mut missing = good.clone();
    missing.webhook_signature.clear();
    let mut old = good.clone();
    let behind = now() - 301;
    old.webhook_timestamp = behind.to_string();
    old.webhook_signature = sign(SECRET.as_bytes(), "msg_refund", behind, &body);
    // 310, not 301: the clock may tick between signing and verifying, and a second later
    // 301 s ahead is exactly the tolerance, which is accepted.
    let mut new = good.clone();
    let ahead = now() + 310;
    new.webhook_timestamp = ahead.to_string();
    new.webhook_signature = sign(SECRET.as_bytes(), "msg_refund", ahead, &body);
    let mut tampered = good.clone();
    tampered.body = body
        .iter()
        .map(|b| if *b == b'5' { b'6' } else { *b })
        .collect();
    let mut wrong_key = good.clone();
    wrong_key.webhook_signature = sign(b"whsec_another", "msg_refund", now(), &body);
    let mut garbled = good.clone();
    garbled.webhook_timestamp = "soon".into();

    for (request, expected) in [
        (missing, billing::MISSING_REQUIRED_HEADERS),
        (old, billing::MESSAGE_TIMESTAMP_TOO_OLD),
        (new, billing::MESSAGE_TIMESTAMP_TOO_NEW),
        (tampered, billing::NO_MATCHING_SIGNATURE_FOUND),
        (wrong_key, billing::NO_MATCHING_SIGNATURE_FOUND),
        (garbled, billing::INVALID_SIGNATURE_HEADERS),
    ] {
        let failure = refusal(billing.receive(request).await);
        assert_eq!(failure, Failure::from(expected));
        assert_eq!(failure.http_status(), 403);
    }
    assert_eq!(store::count(&billing.db).await.unwrap(), 0);
    // Several signatures in one header (a rotation overlap): any one matching is enough.
    let mut rotated = good.clone();
    rotated.webhook_signature = format!(
        "{} {}",
        sign(b"whsec_old", "msg_refund", now(), &body),
        good.webhook_signature
    );
    assert!(!billing.receive(rotated).await.unwrap().duplicate);
}

#[tokio::test]
async fn without_a_secret_every_delivery_is_answered_503() {
    let billing = Billing::start_with(Backend::Sqlite, &[]).await;
    let failure = refusal(
        billing
            .receive(delivery("msg_1", &fixture("order.created")))
            .await,
    );
    assert_eq!(
        failure,
        Failure::from(billing::BILLING_WEBHOOKS_NOT_CONFIGURED)
    );
    assert_eq!(failure.http_status(), 503);
    assert_eq!(store::count(&billing.db).await.unwrap(), 0);
}
