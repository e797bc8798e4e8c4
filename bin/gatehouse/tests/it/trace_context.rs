//! One sign-up is one trace: the W3C trace context a caller sends to the gateway travels over
//! gRPC metadata into the identity service, is stored with the outbox event, and reaches
//! RabbitMQ as AMQP headers. Its own test binary, because exporting is process-wide.

use std::time::Duration;

use crate::common::{PASSWORD, RABBITMQ, Stack, unique_email, user_created_events, wait_for_user};
use gatehouse_kit::config::Env;
use serde_json::json;

#[tokio::test]
async fn trace_context_flows_from_http_through_grpc_to_amqp() {
    // Exporting on, towards an address nobody listens on: spans are dropped, context flows.
    let env = Env::from_pairs([
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
        ("RUST_LOG", "warn"),
    ]);
    let _telemetry = gatehouse_kit::telemetry::init("test", &env).expect("telemetry");
    assert!(gatehouse_kit::telemetry::exporting());

    let mut events = user_created_events().await;
    let bus_url = format!("amqp://guest:guest@{RABBITMQ}/%2f");
    let stack = Stack::start(&[("BUS_URL", bus_url.as_str())]).await;
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let reply = stack
        .http
        .post(stack.url("/sign-up/email"))
        .header("origin", &stack.origin)
        .header("traceparent", format!("00-{trace_id}-00f067aa0ba902b7-01"))
        .json(&json!({"name": "Tracy", "email": unique_email(), "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let user_id = reply.json::<serde_json::Value>().await.unwrap()["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let (_, properties) = wait_for_user(&mut events, &user_id, Duration::from_secs(15))
        .await
        .expect("user.created delivered");
    let headers = gatehouse_kit::amqp::string_headers(&properties);
    let traceparent = headers.get("traceparent").expect("traceparent AMQP header");
    assert!(
        traceparent.starts_with(&format!("00-{trace_id}-")),
        "the event belongs to the caller's trace: {traceparent}"
    );
    assert!(
        !traceparent.contains("00f067aa0ba902b7"),
        "a child span, not the caller's own"
    );
}
