//! A deleted organization's endpoints go with it: on the organization service's
//! `organization.deleted` the part removes them and what they still owe, so nothing more is
//! sent to them; other organizations' endpoints are untouched.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Consumer, Handler, HandlerFuture, RetryPolicy};
use gatehouse_kit::db::{Backend, Tx, query};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::events::SESSION_ORGANIZATION_EVENTS;
use gatehouse_proto::events::v1::OrganizationDeleted;
use rstest::rstest;

use crate::fan_out::{FAST, Receiver, endpoints, register};
use crate::support::{Billing, delivery, fixture};

/// The session service's consumer of the same event, which this part does not run: on the
/// in-process bus a publish waits for every queue bound to its topic.
struct SessionStandIn;

impl Handler for SessionStandIn {
    fn handle<'a>(&'a self, _tx: &'a mut Tx, _message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async { Ok(()) })
    }
}

/// An order for `organization`'s customer.
fn order_for(
    organization: &str,
    webhook_id: &str,
) -> gatehouse_proto::billing_webhook::v1::ReceiveRequest {
    let mut order: serde_json::Value = serde_json::from_slice(&fixture("order.paid")).unwrap();
    order["data"]["metadata"] = serde_json::json!({"referenceId": organization});
    delivery(webhook_id, &serde_json::to_vec(&order).unwrap())
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_deleted_organizations_endpoints_and_their_deliveries_go(#[case] backend: Backend) {
    // The first attempt fails; the retry would come a minute later.
    let settings: Vec<(&str, &str)> = FAST
        .iter()
        .copied()
        .filter(|(name, _)| *name != "BILLING_WEBHOOK_RETRY_SCHEDULE")
        .chain([("BILLING_WEBHOOK_RETRY_SCHEDULE", "60")])
        .collect();
    let billing = Billing::start_with(backend, &settings).await;
    let stop = tokio_util::sync::CancellationToken::new();
    let _stop = stop.clone().drop_guard();
    Consumer {
        queue: SESSION_ORGANIZATION_EVENTS.name,
        db: billing.db.clone(),
        bus: billing.bus.clone(),
        handler: Arc::new(SessionStandIn),
        retry: RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(stop);
    let manage = endpoints(&billing, &[]);
    let gone = Receiver::answering(&[500]);
    let kept = Receiver::answering(&[500]);
    let gone_url = gone.serve().await;
    let doomed = [
        register(&manage, "org_gone", &gone_url, &[]).await,
        register(&manage, "org_gone", &gone_url, &["order.refunded"]).await,
    ];
    let survivor = register(&manage, "org_kept", &kept.serve().await, &[]).await;
    billing
        .receive(order_for("org_gone", "wh_gone"))
        .await
        .unwrap();
    billing
        .receive(order_for("org_kept", "wh_kept"))
        .await
        .unwrap();
    let attempted = "SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND attempts = 1";
    for endpoint_id in [&doomed[0].id, &survivor.id] {
        eventually(Duration::from_secs(10), || async {
            let (n,): (i64,) = query(attempted)
                .bind(endpoint_id.as_str())
                .fetch_one(&billing.db)
                .await
                .unwrap();
            (n == 1).then_some(())
        })
        .await
        .expect("a first attempt, its retry pending");
    }

    // The organization service deletes org_gone.
    let mut tx = billing.db.begin().await.unwrap();
    tx.enqueue(&OutboxEvent::new(&OrganizationDeleted {
        organization_id: "org_gone".into(),
    }))
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let gone_with_it = eventually(Duration::from_secs(10), || async {
        manage
            .list("org_gone")
            .await
            .unwrap()
            .is_empty()
            .then_some(())
    })
    .await;
    assert!(gone_with_it.is_some(), "{backend:?}: its endpoints stayed");
    let (owed,): (i64,) = query("SELECT COUNT(*) FROM deliveries WHERE endpoint_id IN ($1, $2)")
        .bind(doomed[0].id.as_str())
        .bind(doomed[1].id.as_str())
        .fetch_one(&billing.db)
        .await
        .unwrap();
    assert_eq!(owed, 0, "{backend:?}: its deliveries stayed");
    let kept_ids: Vec<String> = manage
        .list("org_kept")
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(
        kept_ids,
        std::slice::from_ref(&survivor.id),
        "{backend:?}: another organization's endpoint is untouched"
    );
    let (pending,): (i64,) =
        query("SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'pending'")
            .bind(survivor.id.as_str())
            .fetch_one(&billing.db)
            .await
            .unwrap();
    assert_eq!(pending, 1, "{backend:?}: and so is its pending delivery");

    // A later event for it is sent nowhere.
    billing
        .receive(order_for("org_gone", "wh_gone_again"))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(gone.seen().len(), 1, "{backend:?}");
}
