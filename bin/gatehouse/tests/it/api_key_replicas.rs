//! API key limits across replicas, as a platform runs them: two identity processes and two
//! gateways (each gateway calling its own identity) on one PostgreSQL, Redis and RabbitMQ.
//! Requests with one key, split over both gateways at once, get exactly the rate limit's
//! worth of answers and exactly the remaining uses' worth: the window counts in Redis, the
//! uses in one conditional UPDATE.

use std::time::Duration;

use crate::common::{PASSWORD, install_crypto, unique_email};
use crate::distributed::{Process, free_port};
use gatehouse_kit::db::Backend;
use gatehouse_kit::testing::TestDb;
use serde_json::json;

/// `gatehouse api-key create --email <email> <args>` on the identity database: the key.
fn operator_key(database_url: &str, email: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["api-key", "create", "--email", email])
        .args(args)
        .env_clear()
        .env("RUST_LOG", "warn")
        .env("IDENTITY_DATABASE_URL", database_url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let made: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    made["key"].as_str().unwrap().to_string()
}

/// Sends `n` get-sessions with `key` at once, alternating between `gateways`: the statuses.
async fn burst(http: &reqwest::Client, gateways: &[String], key: &str, n: usize) -> Vec<u16> {
    let requests = (0..n).map(|i| {
        let url = format!("{}/get-session", gateways[i % gateways.len()]);
        let request = http.get(url).header("x-api-key", key);
        async move { request.send().await.unwrap().status().as_u16() }
    });
    futures_util::future::join_all(requests).await
}

#[tokio::test]
async fn limits_hold_exactly_across_two_identities_and_two_gateways() {
    install_crypto();
    let (identity_db, session_db) = (
        TestDb::new(Backend::Postgres).await,
        TestDb::new(Backend::Postgres).await,
    );
    let identity_ports = [free_port(), free_port()];
    let (session_port, gateway_ports) = (free_port(), [free_port(), free_port()]);
    let base_url = format!("http://localhost:{}", gateway_ports[0]);
    let shared = [
        (
            "SERVICE_TOKEN",
            "replica-test-service-token-0123456789".to_string(),
        ),
        (
            "AUTH_SECRET",
            "replica-test-secret-0123456789abcdef".to_string(),
        ),
        ("CACHE_URL", "redis://127.0.0.1:6379".to_string()),
        (
            "BUS_URL",
            "amqp://guest:guest@127.0.0.1:5672/%2f".to_string(),
        ),
    ];
    let with = |extra: Vec<(&'static str, String)>| {
        shared.iter().cloned().chain(extra).collect::<Vec<_>>()
    };
    let mut processes = Vec::new();
    for port in identity_ports {
        processes.push(Process::spawn(
            "identity",
            &with(vec![
                ("IDENTITY_LISTEN", format!("127.0.0.1:{port}")),
                ("IDENTITY_OPS_LISTEN", "127.0.0.1:0".to_string()),
                ("IDENTITY_DATABASE_URL", identity_db.url.clone()),
            ]),
        ));
    }
    processes.push(Process::spawn(
        "session",
        &with(vec![
            ("SESSION_LISTEN", format!("127.0.0.1:{session_port}")),
            ("SESSION_OPS_LISTEN", "127.0.0.1:0".to_string()),
            ("SESSION_DATABASE_URL", session_db.url.clone()),
            (
                "IDENTITY_URL",
                format!("http://127.0.0.1:{}", identity_ports[0]),
            ),
        ]),
    ));
    for (gateway_port, identity_port) in gateway_ports.into_iter().zip(identity_ports) {
        processes.push(Process::spawn(
            "gateway",
            &with(vec![
                ("GATEWAY_LISTEN", format!("127.0.0.1:{gateway_port}")),
                ("GATEWAY_OPS_LISTEN", "127.0.0.1:0".to_string()),
                ("BASE_URL", base_url.clone()),
                ("IDENTITY_URL", format!("http://127.0.0.1:{identity_port}")),
                ("SESSION_URL", format!("http://127.0.0.1:{session_port}")),
                ("RATE_LIMIT_MAX", "100000".to_string()),
            ]),
        ));
    }
    let logs = |processes: &Vec<Process>| {
        processes
            .iter()
            .map(Process::log)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let http = reqwest::Client::new();
    let gateways: Vec<String> = gateway_ports
        .iter()
        .map(|port| format!("http://127.0.0.1:{port}/api/auth"))
        .collect();

    // A user, once every process answers (the services may still be migrating).
    let email = unique_email();
    let mut signed_up = false;
    for _ in 0..100 {
        let reply = http
            .post(format!("{}/sign-up/email", gateways[0]))
            .header("origin", &base_url)
            .json(&json!({"name": "Rhea", "email": email, "password": PASSWORD}))
            .send()
            .await;
        if reply.is_ok_and(|r| r.status() == 200) {
            signed_up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(signed_up, "the stack never came up\n{}", logs(&processes));
    for gateway in &gateways {
        let mut up = false;
        for _ in 0..100 {
            if http
                .get(format!("{gateway}/ok"))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
            {
                up = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(up, "{gateway} never answered\n{}", logs(&processes));
    }

    let limited = operator_key(
        &identity_db.url,
        &email,
        &["--rate-limit-max", "25", "--rate-limit-window-ms", "60000"],
    );
    let statuses = burst(&http, &gateways, &limited, 60).await;
    let allowed = statuses.iter().filter(|s| **s == 200).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!(
        (allowed, refused),
        (25, 35),
        "{statuses:?}\n{}",
        logs(&processes)
    );

    let capped = operator_key(
        &identity_db.url,
        &email,
        &["--remaining", "10", "--no-rate-limit"],
    );
    let statuses = burst(&http, &gateways, &capped, 40).await;
    let allowed = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(allowed, 10, "{statuses:?}\n{}", logs(&processes));
    let spent = http
        .get(format!("{}/get-session", gateways[1]))
        .header("x-api-key", &capped)
        .send()
        .await
        .unwrap();
    assert_eq!(spent.status(), 429);
    let body: serde_json::Value = spent.json().await.unwrap();
    assert_eq!(body["code"], "USAGE_EXCEEDED");
}
