//! When a backend service is unreachable the gateway answers 503 with a clear body, and it
//! recovers by itself when the service returns.

use std::time::Duration;

use crate::common::{Stack, unique_email};
use gatehouse_kit::config::Env;
use gatehouse_kit::testing::{ToggleProxy, eventually};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_missing_session_service_is_a_503_until_it_returns() {
    let stack = Stack::start(&[]).await;
    let up = stack.sign_up(&unique_email()).await;
    let jar = up.cookie_header();

    // A second gateway that reaches the session service through a cuttable proxy.
    let proxy = ToggleProxy::start(&stack.session_addr.to_string()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let secret = std::fs::read_to_string(format!("{}/secret", stack.data_dir)).unwrap();
    let env = Env::from_pairs([
        ("BASE_URL", stack.origin.clone()),
        ("AUTH_SECRET", secret),
        ("IDENTITY_URL", format!("http://{}", stack.identity_addr)),
        ("SESSION_URL", format!("http://{}", proxy.addr)),
        ("SERVICE_TOKEN", stack.service_token.expose().to_string()),
    ]);
    let config = gatehouse_gateway::GatewayConfig::from_env(&env).unwrap();
    let shutdown = CancellationToken::new();
    tokio::spawn(gatehouse_gateway::run(config, listener, shutdown.clone()));
    let get_session = || async {
        let reply = stack
            .http
            .get(format!("http://{addr}/api/auth/get-session"))
            .header("cookie", &jar)
            .send()
            .await
            .ok()?;
        Some((reply.status().as_u16(), reply.text().await.ok()?))
    };

    let healthy = eventually(Duration::from_secs(5), || async {
        get_session().await.filter(|(status, _)| *status == 200)
    })
    .await;
    assert!(healthy.is_some(), "the second gateway serves the session");

    proxy.cut();
    let (status, body) = get_session().await.unwrap();
    assert_eq!(status, 503);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "SERVICE_UNAVAILABLE");
    assert!(body["message"].as_str().unwrap().contains("unavailable"));

    proxy.restore();
    let recovered = eventually(Duration::from_secs(15), || async {
        get_session().await.filter(|(status, _)| *status == 200)
    })
    .await;
    let (_, body) = recovered.expect("recovers once the service is back");
    assert!(body.contains(&up.json()["token"].as_str().unwrap().to_string()));
    shutdown.cancel();
}

#[tokio::test]
async fn standalone_stops_whole_when_a_part_fails_and_cleanly_on_request() {
    crate::common::install_crypto();
    let data_dir =
        std::env::temp_dir().join(format!("gatehouse-e2e-{}", gatehouse_kit::ids::new_id()));
    let base = |extra: (&str, &str)| {
        Env::from_pairs(crate::common::any_free_port().into_iter().chain([
            ("DATA_DIR".to_string(), data_dir.display().to_string()),
            (extra.0.to_string(), extra.1.to_string()),
        ]))
    };

    // Identity cannot open its database: the process must not limp on with 503s.
    let broken = base((
        "IDENTITY_DATABASE_URL",
        "postgres://postgres@127.0.0.1:1/nowhere",
    ));
    let running = gatehouse::standalone::start(&broken, CancellationToken::new())
        .await
        .unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(20), running.wait())
        .await
        .expect("stops by itself");
    let error = outcome.expect_err("reports the failure");
    assert!(error.starts_with("identity:"), "{error}");

    // Asked to stop: everything stops cleanly.
    let shutdown = CancellationToken::new();
    let running = gatehouse::standalone::start(&base(("RUST_LOG", "warn")), shutdown.clone())
        .await
        .unwrap();
    shutdown.cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(10), running.wait()).await;
    assert_eq!(outcome.expect("stops"), Ok(()));
}
