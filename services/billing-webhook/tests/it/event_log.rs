//! The management surface over gRPC, through a real part: endpoints confined to their
//! organization (EndpointService), test events, the event log with its filters and attempts,
//! and replays of one event and of a time range (DeliveryService).

use std::time::Duration;

use gatehouse_kit::db::Backend;
use gatehouse_kit::errors::Failure;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::billing_webhook::v1 as pb;
use rstest::rstest;

use crate::fan_out::{FAST, PLATFORM, Receiver, settled, verify};
use crate::support::{Billing, delivery, fixture};

fn refusal(result: Result<impl std::fmt::Debug, tonic::Status>) -> String {
    Failure::from_status(&result.expect_err("refused"))
        .code()
        .to_string()
}

/// What an owner of `organization` registers for `url`.
fn registration(organization: &str, url: &str) -> pb::CreateEndpointRequest {
    pb::CreateEndpointRequest {
        organization_id: organization.into(),
        created_by_email: "owner@example.com".into(),
        url: url.into(),
        ..Default::default()
    }
}

/// Registers an endpoint as `request` says, once the part listens.
async fn create(billing: &Billing, request: pb::CreateEndpointRequest) -> pb::Endpoint {
    eventually(Duration::from_secs(10), || {
        let request = request.clone();
        async move {
            let mut endpoints = billing.endpoints.clone();
            endpoints.create_endpoint(request).await.ok()
        }
    })
    .await
    .expect("the part answers")
    .into_inner()
    .endpoint
    .unwrap()
}

async fn secret(billing: &Billing, organization: &str, id: &str) -> pb::GetEndpointSecretResponse {
    billing
        .endpoints
        .clone()
        .get_endpoint_secret(pb::GetEndpointSecretRequest {
            organization_id: organization.into(),
            endpoint_id: id.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

async fn list(billing: &Billing, request: pb::ListEventsRequest) -> pb::ListEventsResponse {
    billing
        .deliveries
        .clone()
        .list_events(request)
        .await
        .unwrap()
        .into_inner()
}

async fn event(billing: &Billing, organization: &str, id: &str) -> pb::Event {
    billing
        .deliveries
        .clone()
        .get_event(pb::GetEventRequest {
            organization_id: organization.into(),
            event_id: id.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .event
        .unwrap()
}

/// The event's one delivery once it has `attempts` attempts recorded.
async fn attempted(
    billing: &Billing,
    organization: &str,
    id: &str,
    attempts: usize,
) -> pb::Delivery {
    eventually(Duration::from_secs(15), || async {
        let event = event(billing, organization, id).await;
        event
            .deliveries
            .into_iter()
            .next()
            // The row's own counter, read with its status (the log is read after it).
            .filter(|d| d.attempts as usize >= attempts && d.status != "pending")
    })
    .await
    .unwrap_or_else(|| panic!("{id}: no delivery with {attempts} attempts"))
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn endpoints_are_managed_within_their_organization_and_take_test_events(
    #[case] backend: Backend,
) {
    let billing = Billing::start_with(backend, FAST).await;
    let mut endpoints = billing.endpoints.clone();
    let receiver = Receiver::default();
    let url = receiver.serve().await;
    // Waits for the part to listen.
    let created = create(
        &billing,
        pb::CreateEndpointRequest {
            event_types: Some(pb::EventTypes {
                names: vec!["order.paid".into()],
            }),
            ..registration("org_a", &url)
        },
    )
    .await;
    assert!(created.enabled && created.id.starts_with("ep_"));
    assert_eq!(created.event_types, ["order.paid"]);

    let listed = |organization: &'static str| {
        let mut endpoints = billing.endpoints.clone();
        async move {
            endpoints
                .list_endpoints(pb::ListEndpointsRequest {
                    organization_id: organization.into(),
                })
                .await
                .unwrap()
                .into_inner()
                .endpoints
        }
    };
    assert_eq!(listed("org_a").await, vec![created.clone()]);
    assert!(listed("org_b").await.is_empty(), "{backend:?}");
    let of_b = pb::GetEndpointRequest {
        organization_id: "org_b".into(),
        endpoint_id: created.id.clone(),
    };
    assert_eq!(
        refusal(endpoints.get_endpoint(of_b).await),
        "ENDPOINT_NOT_FOUND"
    );

    // A bad update is refused whole; a good one changes what it names.
    let bad = pb::UpdateEndpointRequest {
        organization_id: "org_a".into(),
        endpoint_id: created.id.clone(),
        url: Some("ftp://example.com/".into()),
        description: Some("changed".into()),
        ..Default::default()
    };
    assert_eq!(
        refusal(endpoints.update_endpoint(bad).await),
        "INVALID_ENDPOINT_URL"
    );
    let updated = endpoints
        .update_endpoint(pb::UpdateEndpointRequest {
            organization_id: "org_a".into(),
            endpoint_id: created.id.clone(),
            description: Some("orders".into()),
            event_types: Some(pb::EventTypes { names: vec![] }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .endpoint
        .unwrap();
    assert_eq!(
        (
            updated.description.as_str(),
            updated.event_types.len(),
            updated.url.as_str()
        ),
        ("orders", 0, created.url.as_str())
    );

    // Rotation: a new secret, the old one kept beside it for the overlap.
    let first = secret(&billing, "org_a", &created.id).await;
    assert!(first.secret.starts_with("whsec_") && first.previous_secret.is_none());
    let rotated = endpoints
        .rotate_endpoint_secret(pb::RotateEndpointSecretRequest {
            organization_id: "org_a".into(),
            endpoint_id: created.id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .endpoint
        .unwrap();
    assert!(rotated.previous_secret_expires_at_unix_ms.is_some());
    let second = secret(&billing, "org_a", &created.id).await;
    assert_ne!(second.secret, first.secret);
    assert_eq!(
        second.previous_secret.as_deref(),
        Some(first.secret.as_str())
    );

    // A test event reaches this endpoint, signed with both secrets, and is in the log.
    let sent = endpoints
        .send_test_event(pb::SendTestEventRequest {
            organization_id: "org_a".into(),
            endpoint_id: created.id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let (delivery_id, status, _) = settled(&billing, &created.id).await;
    assert_eq!(
        (delivery_id.as_str(), status.as_str()),
        (sent.delivery_id.as_str(), "delivered")
    );
    let seen = receiver.seen();
    assert_eq!(seen.len(), 1, "{backend:?}");
    verify(&second.secret, &seen[0]);
    verify(&first.secret, &seen[0]);
    let body: serde_json::Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(body["type"], "webhook.test");
    assert_eq!(body["data"]["endpoint_id"], created.id);
    assert_eq!(seen[0].headers["webhook-id"], sent.delivery_id.as_str());

    let log = list(
        &billing,
        pb::ListEventsRequest {
            organization_id: "org_a".into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(log.events.len(), 1);
    let logged = &log.events[0];
    assert_eq!(
        (
            logged.id.as_str(),
            logged.event_type.as_str(),
            logged.origin.as_str()
        ),
        (sent.event_id.as_str(), "webhook.test", "test")
    );
    assert_eq!(logged.deliveries[0].status, "delivered");
    let other = list(
        &billing,
        pb::ListEventsRequest {
            organization_id: "org_b".into(),
            ..Default::default()
        },
    )
    .await;
    assert!(
        other.events.is_empty(),
        "{backend:?}: another organization's test"
    );
    let platform = list(
        &billing,
        pb::ListEventsRequest {
            organization_id: PLATFORM.into(),
            ..Default::default()
        },
    )
    .await;
    assert!(platform.events.is_empty(), "{backend:?}: nor a platform's");

    // Pages: newest first, `has_more` while more follow.
    for _ in 0..2 {
        endpoints
            .send_test_event(pb::SendTestEventRequest {
                organization_id: "org_a".into(),
                endpoint_id: created.id.clone(),
            })
            .await
            .unwrap();
    }
    let page = |offset: u32| pb::ListEventsRequest {
        organization_id: "org_a".into(),
        limit: Some(2),
        offset: Some(offset),
        ..Default::default()
    };
    let first_page = list(&billing, page(0)).await;
    assert_eq!((first_page.events.len(), first_page.has_more), (2, true));
    let second_page = list(&billing, page(2)).await;
    assert_eq!((second_page.events.len(), second_page.has_more), (1, false));
    assert_eq!(second_page.events[0].id, sent.event_id, "the oldest last");

    // Disabled: no test event; deleted: gone with its deliveries.
    endpoints
        .update_endpoint(pb::UpdateEndpointRequest {
            organization_id: "org_a".into(),
            endpoint_id: created.id.clone(),
            enabled: Some(false),
            ..Default::default()
        })
        .await
        .unwrap();
    let test = pb::SendTestEventRequest {
        organization_id: "org_a".into(),
        endpoint_id: created.id.clone(),
    };
    assert_eq!(
        refusal(endpoints.send_test_event(test).await),
        "ENDPOINT_DISABLED"
    );
    let delete_of_b = pb::DeleteEndpointRequest {
        organization_id: "org_b".into(),
        endpoint_id: created.id.clone(),
    };
    assert_eq!(
        refusal(endpoints.delete_endpoint(delete_of_b).await),
        "ENDPOINT_NOT_FOUND"
    );
    endpoints
        .delete_endpoint(pb::DeleteEndpointRequest {
            organization_id: "org_a".into(),
            endpoint_id: created.id.clone(),
        })
        .await
        .unwrap();
    assert!(listed("org_a").await.is_empty());
    assert!(
        event(&billing, "org_a", &sent.event_id)
            .await
            .deliveries
            .is_empty()
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_log_shows_an_organizations_events_and_replays_them(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    // Every scheduled attempt fails (1 + 3 retries); what comes after succeeds.
    let receiver = Receiver::answering(&[500, 500, 500, 500]);
    let url = receiver.serve().await;
    let endpoint = create(&billing, registration("org_a", &url)).await;
    let theirs = create(
        &billing,
        registration("org_b", &Receiver::default().serve().await),
    )
    .await;

    let for_org = |organization: &str, webhook_id: &str| {
        let mut order: serde_json::Value = serde_json::from_slice(&fixture("order.paid")).unwrap();
        order["data"]["metadata"] = serde_json::json!({"referenceId": organization});
        delivery(webhook_id, &serde_json::to_vec(&order).unwrap())
    };
    let mine = billing.receive(for_org("org_a", "wh_log_a")).await.unwrap();
    billing.receive(for_org("org_b", "wh_log_b")).await.unwrap();

    let failed = attempted(&billing, "org_a", &mine.event_id, 4).await;
    assert_eq!(failed.status, "failed", "{backend:?}");
    assert_eq!(failed.endpoint_id, endpoint.id);
    assert!(
        failed
            .attempt_log
            .iter()
            .all(|a| a.trigger == "scheduled" && a.response_status == Some(500) && !a.succeeded)
    );

    // The log: only org_a's event, narrowed by each filter.
    let all = pb::ListEventsRequest {
        organization_id: "org_a".into(),
        ..Default::default()
    };
    let page = list(&billing, all.clone()).await;
    assert_eq!(page.events.len(), 1, "{backend:?}");
    assert_eq!(page.events[0].id, mine.event_id);
    assert_eq!(page.events[0].event_type, "order.paid");
    assert!(
        page.events[0].deliveries[0].attempt_log.is_empty(),
        "the list has no attempts"
    );
    let an_hour_ago = chrono::Utc::now().timestamp_millis() - 3_600_000;
    for (request, expected) in [
        (
            pb::ListEventsRequest {
                delivery_status: Some("failed".into()),
                ..all.clone()
            },
            1,
        ),
        (
            pb::ListEventsRequest {
                event_type: Some("order.paid".into()),
                since_unix_ms: Some(an_hour_ago),
                endpoint_id: Some(endpoint.id.clone()),
                ..all.clone()
            },
            1,
        ),
        (
            pb::ListEventsRequest {
                until_unix_ms: Some(an_hour_ago),
                ..all.clone()
            },
            0,
        ),
        (
            pb::ListEventsRequest {
                delivery_status: Some("delivered".into()),
                ..all.clone()
            },
            0,
        ),
        (
            pb::ListEventsRequest {
                event_type: Some("order.refunded".into()),
                ..all.clone()
            },
            0,
        ),
        (
            pb::ListEventsRequest {
                endpoint_id: Some(theirs.id.clone()),
                ..all.clone()
            },
            0,
        ),
        (
            pb::ListEventsRequest {
                since_unix_ms: Some(chrono::Utc::now().timestamp_millis() + 60_000),
                ..all.clone()
            },
            0,
        ),
    ] {
        assert_eq!(
            list(&billing, request.clone()).await.events.len(),
            expected,
            "{request:?}"
        );
    }
    let bad_status = pb::ListEventsRequest {
        delivery_status: Some("lost".into()),
        ..all.clone()
    };
    assert_eq!(
        refusal(billing.deliveries.clone().list_events(bad_status).await),
        "INVALID_DELIVERY_STATUS"
    );
    let of_b = pb::GetEventRequest {
        organization_id: "org_b".into(),
        event_id: mine.event_id.clone(),
    };
    assert_eq!(
        refusal(billing.deliveries.clone().get_event(of_b).await),
        "EVENT_NOT_FOUND"
    );

    // Bad ranges change nothing.
    let now = chrono::Utc::now().timestamp_millis();
    for (since, until) in [
        (now + 60_000, None),
        (now - 1_000, Some(now - 60_000)),
        (now - 91 * 86_400_000, None),
    ] {
        let request = pb::ReplayRangeRequest {
            organization_id: "org_a".into(),
            since_unix_ms: since,
            until_unix_ms: until,
            ..Default::default()
        };
        assert_eq!(
            refusal(billing.deliveries.clone().replay_range(request).await),
            "INVALID_REPLAY_RANGE"
        );
    }
    assert_eq!(receiver.seen().len(), 4);

    // Recovering the range sends the failed delivery once more, with the same webhook-id.
    let recovered = billing
        .deliveries
        .clone()
        .replay_range(pb::ReplayRangeRequest {
            organization_id: "org_a".into(),
            since_unix_ms: now - 3_600_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(recovered.replayed, 1);
    let delivered = attempted(&billing, "org_a", &mine.event_id, 5).await;
    assert_eq!(delivered.status, "delivered", "{backend:?}");
    let last = delivered.attempt_log.last().unwrap();
    assert_eq!(
        (last.trigger.as_str(), last.response_status),
        ("manual", Some(204))
    );
    let seen = receiver.seen();
    assert_eq!(seen[4].headers["webhook-id"], seen[0].headers["webhook-id"]);

    // Delivered now: a range recovery leaves it alone; an event replay sends it again.
    let again = pb::ReplayRangeRequest {
        organization_id: "org_a".into(),
        since_unix_ms: now - 3_600_000,
        ..Default::default()
    };
    assert_eq!(
        billing
            .deliveries
            .clone()
            .replay_range(again)
            .await
            .unwrap()
            .into_inner()
            .replayed,
        0
    );
    let replayed = billing
        .deliveries
        .clone()
        .replay_event(pb::ReplayEventRequest {
            organization_id: "org_a".into(),
            event_id: mine.event_id.clone(),
            endpoint_id: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replayed.delivery_ids, vec![delivered.id.clone()]);
    attempted(&billing, "org_a", &mine.event_id, 6).await;
    // Another organization cannot replay it, nor send it to its own endpoint.
    let of_b = pb::ReplayEventRequest {
        organization_id: "org_b".into(),
        event_id: mine.event_id.clone(),
        endpoint_id: Some(theirs.id.clone()),
    };
    assert_eq!(
        refusal(billing.deliveries.clone().replay_event(of_b).await),
        "EVENT_NOT_FOUND"
    );
    // A platform organization sees the payments platform's events, not others' deliveries.
    let platform = list(
        &billing,
        pb::ListEventsRequest {
            organization_id: PLATFORM.into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(platform.events.len(), 2, "{backend:?}");
    assert!(platform.events.iter().all(|e| e.deliveries.is_empty()));

    // A disabled endpoint is sent nothing, replays included.
    billing
        .endpoints
        .clone()
        .update_endpoint(pb::UpdateEndpointRequest {
            organization_id: "org_a".into(),
            endpoint_id: endpoint.id.clone(),
            enabled: Some(false),
            ..Default::default()
        })
        .await
        .unwrap();
    let to_disabled = pb::ReplayEventRequest {
        organization_id: "org_a".into(),
        event_id: mine.event_id.clone(),
        endpoint_id: Some(endpoint.id.clone()),
    };
    assert_eq!(
        refusal(billing.deliveries.clone().replay_event(to_disabled).await),
        "ENDPOINT_DISABLED"
    );
    let to_all = pb::ReplayEventRequest {
        organization_id: "org_a".into(),
        event_id: mine.event_id.clone(),
        endpoint_id: None,
    };
    let none = billing
        .deliveries
        .clone()
        .replay_event(to_all)
        .await
        .unwrap();
    assert!(none.into_inner().delivery_ids.is_empty());
    let range = pb::ReplayRangeRequest {
        organization_id: "org_a".into(),
        since_unix_ms: an_hour_ago,
        include_delivered: true,
        ..Default::default()
    };
    let replayed = billing
        .deliveries
        .clone()
        .replay_range(range)
        .await
        .unwrap();
    assert_eq!(replayed.into_inner().replayed, 0);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.seen().len(), 6, "{backend:?}");
}
