//! A peer that goes away while a call is in flight (a SIGKILLed service, a cut connection) is
//! a 503 for the caller, as a peer that is down before the call is — never a 500.

use std::time::Duration;

use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::testing::ToggleProxy;
use tokio::net::TcpListener;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// A health server whose every call takes `delay` before it answers.
async fn slow_health_server(delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (_reporter, health) = tonic_health::server::health_reporter();
    let slow = tower::ServiceBuilder::new().map_future(move |answer| async move {
        tokio::time::sleep(delay).await;
        answer.await
    });
    tokio::spawn(
        tonic::transport::Server::builder()
            .layer(slow)
            .add_service(health)
            .serve_with_incoming(tokio_stream_of(listener)),
    );
    addr.to_string()
}

fn tokio_stream_of(
    listener: TcpListener,
) -> impl futures_util::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    futures_util::stream::unfold(listener, |listener| async move {
        let accepted = listener.accept().await.map(|(stream, _)| stream);
        Some((accepted, listener))
    })
}

#[tokio::test]
async fn a_call_cut_in_flight_is_service_unavailable() {
    let server = slow_health_server(Duration::from_millis(600)).await;
    let proxy = ToggleProxy::start(&server).await;
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", proxy.addr))
        .unwrap()
        .connect_lazy();
    let mut client = HealthClient::new(channel);
    let call = tokio::spawn(async move {
        client
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    proxy.cut();
    let status = call
        .await
        .unwrap()
        .expect_err("the connection was cut mid-call");
    let failure = Failure::from_status(&status);
    assert!(
        failure.is(base::SERVICE_UNAVAILABLE),
        "{status:?} became {failure:?}"
    );
    assert_eq!(failure.http_status(), 503);
}

#[tokio::test]
async fn a_peer_that_is_down_before_the_call_is_service_unavailable() {
    let proxy = ToggleProxy::start("127.0.0.1:9").await;
    proxy.cut();
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", proxy.addr))
        .unwrap()
        .connect_lazy();
    let status = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect_err("nothing answers");
    assert_eq!(
        Failure::from_status(&status).http_status(),
        503,
        "{status:?}"
    );
}
