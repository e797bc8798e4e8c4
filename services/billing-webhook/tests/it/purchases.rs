//! Events whose entity names no organization — benefit grants, refunds, renewal orders — reach
//! the organization their purchase was made for, whichever of the two arrives first, in its
//! endpoints and its event log; a personal purchase's never do.

use std::time::Duration;

use gatehouse_kit::db::Backend;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::billing_webhook::v1 as pb;
use rstest::rstest;
use serde_json::{Value, json};

use crate::fan_out::{FAST, PLATFORM, Receiver, endpoints, register};
use crate::support::{Billing, delivery, fixture};

const TEAM: &str = "team_42";

fn event(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).unwrap()
}

/// A subscription `id`, bought for `organization` (or for oneself).
fn subscription(id: &str, organization: Option<&str>) -> Value {
    let mut body = event("subscription.created");
    body["data"]["id"] = id.into();
    body["data"]["metadata"] = organization.map_or(json!({}), |o| json!({"referenceId": o}));
    body
}

/// A benefit grant `id` of subscription `purchase`.
fn grant(id: &str, purchase: &str) -> Value {
    let mut body = event("benefit_grant.created");
    body["data"]["id"] = id.into();
    body["data"]["subscription_id"] = purchase.into();
    body["data"]["order_id"] = Value::Null;
    body
}

/// Sends `body` as the payments platform would.
async fn send(billing: &Billing, webhook_id: &str, body: &Value) {
    billing
        .receive(delivery(webhook_id, &serde_json::to_vec(body).unwrap()))
        .await
        .unwrap();
}

/// The entity ids `receiver` was sent, sorted.
fn received(receiver: &Receiver) -> Vec<String> {
    let mut ids: Vec<String> = receiver
        .seen()
        .iter()
        .map(|seen| {
            let body: Value = serde_json::from_slice(&seen.body).unwrap();
            body["data"]["id"].as_str().unwrap().to_string()
        })
        .collect();
    ids.sort();
    ids
}

/// Waits until `receiver` was sent exactly `expected` (sorted), then a little longer for
/// anything extra.
async fn receives(receiver: &Receiver, expected: &[&str], what: &str) {
    eventually(Duration::from_secs(15), || async {
        (received(receiver).len() >= expected.len()).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(received(receiver), expected, "{what}");
}

async fn logged(billing: &Billing, organization: &str) -> Vec<String> {
    let mut types: Vec<String> = billing
        .deliveries
        .clone()
        .list_events(pb::ListEventsRequest {
            organization_id: organization.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events
        .into_iter()
        .map(|event| event.event_type)
        .collect();
    types.sort();
    types
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_grant_reaches_its_purchases_organization_before_or_after_the_purchase(
    #[case] backend: Backend,
) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let (team, platform) = (Receiver::default(), Receiver::default());
    register(&manage, TEAM, &team.serve().await, &[]).await;
    register(&manage, PLATFORM, &platform.serve().await, &[]).await;

    // The purchase first, then its grant.
    send(&billing, "wh_sub_a", &subscription("sub_a", Some(TEAM))).await;
    send(&billing, "wh_grant_a", &grant("grant_a", "sub_a")).await;
    receives(&team, &["grant_a", "sub_a"], "grant after its purchase").await;

    // The grant first: the platform has it at once, the team once the purchase names it.
    send(&billing, "wh_grant_b", &grant("grant_b", "sub_b")).await;
    receives(&platform, &["grant_a", "grant_b", "sub_a"], "platform").await;
    receives(&team, &["grant_a", "sub_a"], "not before its purchase").await;
    send(&billing, "wh_sub_b", &subscription("sub_b", Some(TEAM))).await;
    let all = ["grant_a", "grant_b", "sub_a", "sub_b"];
    receives(&team, &all, "grant before its purchase").await;

    // A personal purchase's grant, in either order, reaches the platform only.
    send(&billing, "wh_grant_c", &grant("grant_c", "sub_c")).await;
    send(&billing, "wh_sub_c", &subscription("sub_c", None)).await;
    send(&billing, "wh_grant_d", &grant("grant_d", "sub_c")).await;
    let everything = [
        "grant_a", "grant_b", "grant_c", "grant_d", "sub_a", "sub_b", "sub_c",
    ];
    receives(&platform, &everything, "platform takes all").await;
    receives(&team, &all, "never another's purchase").await;

    let grant_type = "benefit_grant.created".to_string();
    let sub_type = "subscription.created".to_string();
    assert_eq!(
        logged(&billing, TEAM).await,
        [grant_type.clone(), grant_type, sub_type.clone(), sub_type],
        "{backend:?}: the team's event log holds its grants"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_refund_of_a_renewal_order_follows_the_order_to_its_subscription(
    #[case] backend: Backend,
) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let team = Receiver::default();
    register(&manage, TEAM, &team.serve().await, &[]).await;

    // A renewal order names only its subscription; its refund names only the order. Both
    // arrive before the subscription.
    let mut refund = event("refund.created");
    refund["data"]["id"] = "refund_r".into();
    refund["data"]["order_id"] = "order_r".into();
    refund["data"]["subscription_id"] = Value::Null;
    let mut order = event("order.paid");
    order["data"]["id"] = "order_r".into();
    order["data"]["subscription_id"] = "sub_r".into();
    order["data"]["metadata"] = json!({});
    send(&billing, "wh_refund_r", &refund).await;
    send(&billing, "wh_order_r", &order).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    receives(&team, &[], "nothing before the subscription").await;

    send(&billing, "wh_sub_r", &subscription("sub_r", Some(TEAM))).await;
    receives(&team, &["order_r", "refund_r", "sub_r"], "the whole chain").await;

    // A later refund of that order goes straight to the team.
    refund["data"]["id"] = "refund_s".into();
    send(&billing, "wh_refund_s", &refund).await;
    receives(
        &team,
        &["order_r", "refund_r", "refund_s", "sub_r"],
        "known order",
    )
    .await;
}

/// Grants and their purchases sent at the same moment, many at once: however the consumer's
/// concurrent transactions interleave, every grant reaches the team exactly once.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn grants_and_purchases_handled_at_once_never_miss_each_other(#[case] backend: Backend) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let team = Receiver::default();
    register(&manage, TEAM, &team.serve().await, &[]).await;

    const PURCHASES: usize = 24;
    let sends = (0..PURCHASES).map(|n| {
        let billing = &billing;
        async move {
            let purchase = format!("sub_{n}");
            let (grant_id, sub_id) = (format!("wh_g{n}"), format!("wh_s{n}"));
            let (granted, bought) = (
                grant(&format!("grant_{n}"), &purchase),
                subscription(&purchase, Some(TEAM)),
            );
            tokio::join!(
                send(billing, &grant_id, &granted),
                send(billing, &sub_id, &bought)
            );
        }
    });
    futures_util::future::join_all(sends).await;

    let mut expected: Vec<String> = (0..PURCHASES)
        .flat_map(|n| [format!("grant_{n}"), format!("sub_{n}")])
        .collect();
    expected.sort();
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    receives(&team, &expected, &format!("{backend:?}: every grant, once")).await;
}

/// A purchase's event that does not match the model is not filed, but it still names its
/// organization: the grant that waited for it is adopted all the same.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_purchase_that_does_not_match_the_model_still_adopts_its_grants(
    #[case] backend: Backend,
) {
    let billing = Billing::start_with(backend, FAST).await;
    let manage = endpoints(&billing, &[]);
    let team = Receiver::default();
    register(&manage, TEAM, &team.serve().await, &[]).await;

    send(&billing, "wh_grant_m", &grant("grant_m", "sub_m")).await;
    let mut broken = subscription("sub_m", Some(TEAM));
    broken["data"]["customer"] = Value::Null;
    send(&billing, "wh_sub_m", &broken).await;
    receives(&team, &["grant_m", "sub_m"], "the grant, adopted").await;
    let (filed,): (i64,) =
        gatehouse_kit::db::query("SELECT COUNT(*) FROM billing_entities WHERE id = 'sub_m'")
            .fetch_one(&billing.db)
            .await
            .unwrap();
    assert_eq!(
        filed, 0,
        "{backend:?}: the broken subscription is not filed"
    );
}
