//! The fan-out through outages, on PostgreSQL and RabbitMQ as deployed: the sellers' receiver
//! is down for a while and the broker connection is cut mid-stream (a TCP proxy in front of
//! RabbitMQ, kit's `ToggleProxy`). Every event stored ends delivered; duplicates only as
//! at-least-once allows (the same `webhook-id` again). It uses the broker's default vhost, as
//! the distributed suite does: a message left there by an earlier run names an event or a
//! delivery this run's database does not have, and is acknowledged and dropped.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::testing::{ToggleProxy, eventually};

use crate::fan_out::{FAST, PLATFORM, Receiver};
use crate::support::{Billing, delivery, fixture};

const EVENTS: usize = 20;

#[tokio::test]
async fn every_event_is_delivered_through_a_receiver_outage_and_a_broker_cut() {
    let broker = ToggleProxy::start("127.0.0.1:5672").await;
    let bus = format!("amqp://guest:guest@{}/%2f", broker.addr);
    // The receiver's outage outlasts the first retries; the schedule outlasts the outage.
    let settings: Vec<(&str, &str)> = FAST
        .iter()
        .copied()
        .filter(|(name, _)| *name != "BILLING_WEBHOOK_RETRY_SCHEDULE")
        .chain([
            ("BUS_URL", bus.as_str()),
            ("BILLING_WEBHOOK_RETRY_SCHEDULE", "0.2,0.5,1,2,4,8"),
        ])
        .collect();
    let billing = Billing::start_with(Backend::Postgres, &settings).await;
    let manage = crate::fan_out::endpoints(&billing, &[]);
    let receiver = Receiver::default();
    receiver.down.store(true, Ordering::SeqCst);
    let endpoint = crate::fan_out::register(&manage, PLATFORM, &receiver.serve().await, &[]).await;

    let body = fixture("order.paid");
    for n in 0..EVENTS {
        if n == EVENTS / 2 {
            // Mid-stream: the broker goes away; the intake keeps storing (the outbox holds
            // the events), and comes back a moment later.
            broker.cut();
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        billing
            .receive(delivery(&format!("wh_fault_{n}"), &body))
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(1200)).await;
    broker.restore();
    // The receiver comes back only once every delivery has failed at least once.
    let failing = eventually(Duration::from_secs(30), || async {
        let (n,): (i64,) = query(
            "SELECT COUNT(DISTINCT delivery_id) FROM delivery_attempts \
             WHERE endpoint_id = $1 AND NOT succeeded",
        )
        .bind(endpoint.id.as_str())
        .fetch_one(&billing.db)
        .await
        .unwrap();
        (n == EVENTS as i64).then_some(())
    })
    .await;
    assert!(
        failing.is_some(),
        "every delivery was tried while the receiver was down"
    );
    receiver.down.store(false, Ordering::SeqCst);

    let delivered = eventually(Duration::from_secs(60), || async {
        let (n,): (i64,) = query(
            "SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'delivered'",
        )
        .bind(endpoint.id.as_str())
        .fetch_one(&billing.db)
        .await
        .unwrap();
        (n == EVENTS as i64).then_some(n)
    })
    .await;
    let (failed,): (i64,) =
        query("SELECT COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND status <> 'delivered'")
            .bind(endpoint.id.as_str())
            .fetch_one(&billing.db)
            .await
            .unwrap();
    assert_eq!(delivered, Some(EVENTS as i64), "{failed} not delivered");
    let ids: Vec<String> = receiver
        .seen()
        .iter()
        .map(|seen| seen.headers["webhook-id"].to_str().unwrap().to_string())
        .collect();
    let distinct: HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), EVENTS, "every delivery arrived");
}
