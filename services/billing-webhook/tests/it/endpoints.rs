//! An owner's edits to an endpoint are single statements: they never write over what was
//! written beside them (a rotation, a disabling by the deliveries), and a change of how it
//! signs keeps the old way signing for the overlap, as a rotation does.

use std::time::Duration;

use gatehouse_billing_webhook::endpoint::secret;
use gatehouse_billing_webhook::endpoint::{Endpoint, Settings};
use gatehouse_kit::db::{Backend, query};
use rstest::rstest;
use standardwebhooks::Webhook;

use crate::fan_out::{FAST, endpoints, register};
use crate::support::Billing;

/// Whether the signature header `endpoint` makes now verifies with `verifier`.
fn verifies(endpoint: &Endpoint, verifier: &Webhook) -> bool {
    let now = chrono::Utc::now();
    let header = secret::signature(endpoint, "msg_1", now.timestamp(), b"{}", now).unwrap();
    let mut headers = http::HeaderMap::new();
    headers.insert("webhook-id", "msg_1".parse().unwrap());
    headers.insert(
        "webhook-timestamp",
        now.timestamp().to_string().parse().unwrap(),
    );
    headers.insert("webhook-signature", header.parse().unwrap());
    verifier.verify(b"{}", &headers).is_ok()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn edits_never_write_over_a_rotation_or_a_disabling(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let created = register(&manage, "org_a", "http://127.0.0.1:9/hook", &[]).await;
    let original = created.secret.clone();

    // One rotation among many edits, all at once.
    let edits = (0..12).map(|n| {
        let (manage, id) = (&manage, created.id.as_str());
        async move {
            let settings = Settings {
                description: Some(format!("edit {n}")),
                ..Default::default()
            };
            manage.update("org_a", id, settings).await.unwrap();
        }
    });
    let (rotated, _) = tokio::join!(
        manage.rotate_secret("org_a", &created.id),
        futures_util::future::join_all(edits)
    );
    let rotated = rotated.unwrap();
    let now = manage.get("org_a", &created.id).await.unwrap();
    assert_eq!(
        now.secret, rotated.secret,
        "{backend:?}: the rotation stands"
    );
    assert_ne!(now.secret, original);
    assert_eq!(now.previous_secret.as_deref(), Some(original.as_str()));
    assert!(now.description.starts_with("edit "));

    // The deliveries disable it; an owner's edit after that leaves it disabled.
    query(
        "UPDATE endpoints SET enabled = FALSE, disabled_reason = 'failing for 5 days', \
         failing_since = $2 WHERE id = $1",
    )
    .bind(created.id.as_str())
    .bind(chrono::Utc::now() - chrono::TimeDelta::days(5))
    .execute(&billing.db)
    .await
    .unwrap();
    let edited = manage
        .update(
            "org_a",
            &created.id,
            Settings {
                event_types: Some(vec!["order.paid".into()]),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(!edited.enabled, "{backend:?}: still disabled");
    assert_eq!(
        edited.disabled_reason.as_deref(),
        Some("failing for 5 days")
    );
    assert!(edited.failing_since.is_some());
    assert_eq!(edited.event_types, ["order.paid"]);
    assert_eq!(edited.secret, rotated.secret);

    // Enabling clears the streak and the reason.
    let enabled = manage
        .update(
            "org_a",
            &created.id,
            Settings {
                enabled: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(enabled.enabled);
    assert_eq!(enabled.disabled_reason, None);
    assert_eq!(enabled.failing_since, None);

    // Another organization's endpoint is not found, and nothing changes.
    let refused = manage
        .update(
            "org_b",
            &created.id,
            Settings {
                description: Some("theirs".into()),
                ..Default::default()
            },
        )
        .await;
    assert!(refused.is_err());
    assert!(manage.rotate_secret("org_b", &created.id).await.is_err());
    let unchanged = manage.get("org_a", &created.id).await.unwrap();
    assert_eq!(unchanged.secret, rotated.secret);
    assert_ne!(unchanged.description, "theirs");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn switching_how_it_signs_keeps_the_old_way_for_the_overlap(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let created = register(&manage, "org_a", "http://127.0.0.1:9/hook", &[]).await;
    let standard = Webhook::new(&created.secret).unwrap();
    let polar = Webhook::from_bytes(created.secret.as_bytes().to_vec()).unwrap();
    assert!(verifies(&created, &standard) && !verifies(&created, &polar));

    let switch = |polar_signing| Settings {
        polar_signing: Some(polar_signing),
        ..Default::default()
    };
    let switched = manage
        .update("org_a", &created.id, switch(true))
        .await
        .unwrap();
    assert!(switched.polar_signing);
    assert_eq!(switched.secret, created.secret, "the same secret");
    assert!(
        verifies(&switched, &polar) && verifies(&switched, &standard),
        "{backend:?}: both ways sign during the overlap"
    );

    // Naming the way it signs already changes nothing.
    let again = manage
        .update("org_a", &created.id, switch(true))
        .await
        .unwrap();
    assert_eq!(
        again.previous_secret_expires_at,
        switched.previous_secret_expires_at
    );

    // A rotation after the switch: the old secret keeps signing the way it last did.
    let rotated = manage.rotate_secret("org_a", &created.id).await.unwrap();
    assert!(
        verifies(&rotated, &polar),
        "{backend:?}: the old secret, polar"
    );
    assert!(!verifies(&rotated, &standard));
    assert!(verifies(
        &rotated,
        &Webhook::from_bytes(rotated.secret.as_bytes().to_vec()).unwrap()
    ));

    // Without an overlap, only the current way signs.
    let closed = endpoints(&billing, &[("BILLING_WEBHOOK_SECRET_OVERLAP_HOURS", "0")]);
    let back = closed
        .update("org_a", &created.id, switch(false))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(verifies(&back, &Webhook::new(&rotated.secret).unwrap()));
    assert!(!verifies(
        &back,
        &Webhook::from_bytes(rotated.secret.as_bytes().to_vec()).unwrap()
    ));
}
