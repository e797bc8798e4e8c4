//! What operators watch: Prometheus `/metrics`, `/healthz` and the gRPC health service, on the
//! operations listener only, never on the public port or the services' gRPC ports.

use crate::common::{Stack, unique_email};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

#[tokio::test]
async fn metrics_and_health_are_served_on_the_operations_listener() {
    let stack = Stack::start(&[]).await;
    stack.sign_up(&unique_email()).await;
    let ops = stack.ops_addr;

    let metrics = stack
        .http
        .get(format!("http://{ops}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(metrics.status(), 200);
    let text = metrics.text().await.unwrap();
    assert!(
        text.contains("password_hash_seconds"),
        "hash timings exported: {text}"
    );
    assert!(text.contains("password_hash_queue_seconds"));
    let healthz = stack
        .http
        .get(format!("http://{ops}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(healthz.status(), 200);

    let mut health = HealthClient::new(
        tonic::transport::Endpoint::from_shared(format!("http://{ops}"))
            .unwrap()
            .connect()
            .await
            .unwrap(),
    );
    for service in [
        "",
        "gatehouse.identity.v1.UserService",
        "gatehouse.session.v1.SessionService",
    ] {
        let status = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap();
        assert_eq!(
            status.into_inner().status,
            ServingStatus::Serving as i32,
            "{service:?}"
        );
    }
    let unknown = health
        .check(HealthCheckRequest {
            service: "nope".into(),
        })
        .await;
    assert_eq!(unknown.unwrap_err().code(), tonic::Code::NotFound);
}

#[tokio::test]
async fn the_public_port_and_the_grpc_ports_do_not_serve_metrics() {
    let stack = Stack::start(&[]).await;
    let public = stack
        .http
        .get(stack.base.replace("/api/auth", "/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        public.status(),
        404,
        "the public port serves /api/auth only"
    );
    for addr in [stack.identity_addr, stack.session_addr] {
        // The gRPC ports speak HTTP/2 only, and only to callers with the service token.
        let http1 = stack
            .http
            .get(format!("http://{addr}/metrics"))
            .send()
            .await;
        assert!(http1.is_err(), "{addr}: no HTTP/1 answer at all");
        let h2 = reqwest::Client::builder()
            .http2_prior_knowledge()
            .build()
            .unwrap()
            .get(format!("http://{addr}/metrics"))
            .send()
            .await
            .unwrap();
        assert_eq!(
            h2.headers().get("grpc-status").map(|v| v.as_bytes()),
            Some(&b"16"[..]),
            "{addr}: refused as UNAUTHENTICATED before any route"
        );
        let body = h2.text().await.unwrap();
        assert!(!body.contains("password_hash"), "{addr}: {body}");
    }
}

#[tokio::test]
async fn the_healthcheck_subcommand_reports_the_operations_listener() {
    let stack = Stack::start(&[]).await;
    let check = |addr: String| {
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
                .args(["healthcheck", "--addr", &addr])
                .output()
                .unwrap()
        })
    };
    let healthy = check(stack.ops_addr.to_string()).await.unwrap();
    assert!(healthy.status.success(), "{healthy:?}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = closed.local_addr().unwrap().to_string();
    drop(closed);
    let down = check(nobody).await.unwrap();
    assert!(!down.status.success(), "nothing listening is unhealthy");
    let parts = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .arg("parts")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&parts.stdout)
            .lines()
            .collect::<Vec<_>>(),
        [
            "gateway",
            "identity",
            "session",
            "mailer",
            "organization",
            "billing-webhook"
        ]
    );
}
