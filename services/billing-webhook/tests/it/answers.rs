//! What an attempt reads of an endpoint's answer: its first 2,048 characters, never the whole
//! of a huge body (which would take the service's memory), and no longer than the attempt's
//! timeout, however slowly the body trickles in. Real HTTP servers answer here.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use futures_util::StreamExt as _;
use gatehouse_billing_webhook::delivery::store;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::testing::eventually;
use rstest::rstest;

use crate::fan_out::{FAST, PLATFORM, endpoints, register};
use crate::support::{Billing, delivery, fixture};

/// What the huge answer holds in all: far more than an attempt may read.
const HUGE: usize = 64 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// Serves `POST /huge` (200 and [`HUGE`] bytes, `a` then `b`… per chunk, counting what the
/// server produced) and `POST /drip` (200 and one `x` every 100 ms, never ending).
async fn serve(produced: Arc<AtomicUsize>) -> String {
    let huge = move || {
        let produced = produced.clone();
        async move {
            let chunks = futures_util::stream::iter(0..HUGE / CHUNK).map(move |n| {
                produced.fetch_add(CHUNK, Ordering::SeqCst);
                Ok::<_, std::io::Error>(Bytes::from(vec![b'a' + (n % 26) as u8; CHUNK]))
            });
            Body::from_stream(chunks)
        }
    };
    let drip = || async {
        let drops = futures_util::stream::unfold((), |()| async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Some((Ok::<_, std::io::Error>(Bytes::from_static(b"x")), ()))
        });
        Body::from_stream(drops)
    };
    let app = axum::Router::new()
        .route("/huge", axum::routing::post(huge))
        .route("/drip", axum::routing::post(drip));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_answer_is_read_no_further_than_its_kept_prefix_nor_longer_than_the_timeout(
    #[case] backend: Backend,
) {
    // A one-second attempt timeout; no retries are owed (both answer 200).
    let settings: Vec<(&str, &str)> = FAST
        .iter()
        .copied()
        .filter(|(name, _)| *name != "BILLING_WEBHOOK_ATTEMPT_TIMEOUT_SECS")
        .chain([("BILLING_WEBHOOK_ATTEMPT_TIMEOUT_SECS", "1")])
        .collect();
    let billing = Billing::start_with(backend, &settings).await;
    let manage = endpoints(&billing, &[]);
    let produced = Arc::new(AtomicUsize::new(0));
    let base = serve(produced.clone()).await;
    let huge = register(&manage, PLATFORM, &format!("{base}/huge"), &[]).await;
    let drip = register(&manage, PLATFORM, &format!("{base}/drip"), &[]).await;
    billing
        .receive(delivery("wh_answers", &fixture("order.paid")))
        .await
        .unwrap();

    let attempt_of = |endpoint_id: String| {
        let db = billing.db.clone();
        async move {
            let (delivery_id,): (String,) =
                query("SELECT id FROM deliveries WHERE endpoint_id = $1")
                    .bind(endpoint_id.as_str())
                    .fetch_optional(&db)
                    .await
                    .unwrap()?;
            store::attempts(&db, &delivery_id).await.unwrap().pop()
        }
    };
    let huge_attempt = eventually(Duration::from_secs(20), || attempt_of(huge.id.clone()))
        .await
        .expect("the huge answer's attempt is recorded");
    assert_eq!(huge_attempt.response_status, Some(200), "{backend:?}");
    assert!(huge_attempt.succeeded);
    assert_eq!(
        huge_attempt.response_body.as_deref(),
        Some("a".repeat(2048).as_str()),
        "{backend:?}: the first 2,048 characters are kept"
    );
    // Once the attempt stopped reading, the server can write no more than the connection's
    // buffers take: nowhere near the whole answer.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let written = produced.load(Ordering::SeqCst);
    assert!(
        written < 16 * 1024 * 1024,
        "{backend:?}: the server produced {written} of {HUGE} bytes: the answer was read whole"
    );

    let drip_attempt = eventually(Duration::from_secs(20), || attempt_of(drip.id.clone()))
        .await
        .expect("the dripping answer's attempt is recorded");
    assert_eq!(drip_attempt.response_status, Some(200), "{backend:?}");
    // Ended by the attempt's timeout (with room for a slow machine), keeping what came by then.
    assert!(
        drip_attempt.duration_ms < 4_000,
        "{backend:?}: {} ms",
        drip_attempt.duration_ms
    );
    let kept = drip_attempt.response_body.unwrap_or_default();
    assert!(
        !kept.is_empty() && kept.chars().all(|c| c == 'x'),
        "{backend:?}: what arrived before the timeout is kept: {kept:?}"
    );
}
