//! What operators watch: Prometheus `/metrics` on every listener and the gRPC health service.

use crate::common::{Stack, unique_email};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

#[tokio::test]
async fn metrics_and_health_are_served() {
    let stack = Stack::start(&[]).await;
    stack.sign_up(&unique_email()).await;

    for addr in [stack.identity_addr, stack.session_addr] {
        let metrics = stack
            .http
            .get(format!("http://{addr}/metrics"))
            .send()
            .await
            .unwrap();
        assert_eq!(metrics.status(), 200, "{addr}");
        let text = metrics.text().await.unwrap();
        assert!(
            text.contains("password_hash_seconds"),
            "hash timings exported: {text}"
        );
        assert!(
            text.contains("password_hash_queue_seconds"),
            "queue wait exported"
        );

        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut health = HealthClient::new(channel);
        let overall = health
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await
            .unwrap();
        assert_eq!(
            overall.into_inner().status,
            ServingStatus::Serving as i32,
            "{addr}"
        );
    }
    let mut identity = HealthClient::new(
        tonic::transport::Endpoint::from_shared(format!("http://{}", stack.identity_addr))
            .unwrap()
            .connect()
            .await
            .unwrap(),
    );
    let named = identity
        .check(HealthCheckRequest {
            service: "gatehouse.identity.v1.UserService".into(),
        })
        .await
        .unwrap();
    assert_eq!(named.into_inner().status, ServingStatus::Serving as i32);
    let unknown = identity
        .check(HealthCheckRequest {
            service: "nope".into(),
        })
        .await;
    assert_eq!(unknown.unwrap_err().code(), tonic::Code::NotFound);

    let gateway_metrics = stack
        .http
        .get(stack.base.replace("/api/auth", "/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(gateway_metrics.status(), 200);
}
