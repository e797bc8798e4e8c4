//! The real backends and their outages: events reach RabbitMQ through the outbox even when the
//! broker is away for a while, and sessions keep working from the database while Redis is
//! unreachable, with the cache trusted again (and no revoked session resurrected) once it is
//! back. Outages are made with a TCP proxy that cuts and restores the connection.

use std::time::Duration;

use crate::common::{PASSWORD, RABBITMQ, Stack, unique_email, user_created_events, wait_for_user};
use gatehouse_kit::db::query;
use gatehouse_kit::testing::{ToggleProxy, eventually};
use prost::Message as _;
use serde_json::json;

const REDIS: &str = "127.0.0.1:6379";

#[tokio::test]
async fn user_created_reaches_rabbitmq_even_across_a_broker_outage() {
    let mut events = user_created_events().await;
    let proxy = ToggleProxy::start(RABBITMQ).await;
    let bus_url = format!("amqp://guest:guest@{}/%2f", proxy.addr);
    let stack = Stack::start(&[("BUS_URL", bus_url.as_str())]).await;

    let first = stack.sign_up(&unique_email()).await.json();
    let first_id = first["user"]["id"].as_str().unwrap();
    let (body, props) = wait_for_user(&mut events, first_id, Duration::from_secs(15))
        .await
        .expect("user.created delivered");
    assert_eq!(
        props.kind().as_ref().map(|k| k.as_str()),
        Some("user.created")
    );
    assert_eq!(body.email, first["user"]["email"].as_str().unwrap());
    assert!(
        props
            .message_id()
            .as_ref()
            .is_some_and(|id| id.as_str().len() == 36),
        "a UUID message id consumers dedupe on"
    );
    assert_eq!(props.delivery_mode(), &Some(2), "persistent");

    // The broker routes before it confirms: wait for the relay to have its confirmation.
    let db = stack.identity_db().await;
    let confirmed = eventually(Duration::from_secs(5), || async {
        (gatehouse_kit::outbox::pending(&db).await.ok() == Some(0)).then_some(())
    })
    .await;
    assert!(confirmed.is_some(), "the first event is marked published");

    proxy.cut();
    let second = stack.sign_up(&unique_email()).await.json();
    let second_id = second["user"]["id"].as_str().unwrap().to_string();
    assert!(
        wait_for_user(&mut events, &second_id, Duration::from_millis(1500))
            .await
            .is_none(),
        "the broker is unreachable"
    );
    let pending = gatehouse_kit::outbox::pending(&db).await.unwrap();
    assert_eq!(pending, 1, "the event waits in the outbox");

    proxy.restore();
    let (late, _) = wait_for_user(&mut events, &second_id, Duration::from_secs(20))
        .await
        .expect("delivered once the broker is back");
    assert_eq!(late.user_id, second_id);
    let drained = eventually(Duration::from_secs(5), || async {
        (gatehouse_kit::outbox::pending(&db).await.ok() == Some(0)).then_some(())
    })
    .await;
    assert!(
        drained.is_some(),
        "marked published after the broker confirmed"
    );
}

async fn redis() -> redis::aio::MultiplexedConnection {
    redis::Client::open(format!("redis://{REDIS}"))
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .expect("Redis is required for this test (127.0.0.1:6379)")
}

async fn session_name(stack: &Stack, jar: &str) -> Option<String> {
    let reply = stack.get("/get-session", Some(jar)).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["user"]["name"].as_str().map(String::from)
}

#[tokio::test]
async fn sessions_survive_a_redis_outage_and_the_cache_returns() {
    let proxy = ToggleProxy::start(REDIS).await;
    let cache_url = format!("redis://{}", proxy.addr);
    let stack = Stack::start(&[("CACHE_URL", cache_url.as_str())]).await;
    let mut direct = redis().await;

    let email = unique_email();
    let up = stack.sign_up(&email).await;
    let first_jar = up.cookie_header();
    let token = up.json()["token"].as_str().unwrap().to_string();
    let key = format!(
        "gatehouse:{}",
        gatehouse_session::session::cache::key(&token)
    );
    assert_eq!(
        session_name(&stack, &first_jar).await.as_deref(),
        Some("Test User")
    );
    let cached: Option<Vec<u8>> = redis::cmd("GET")
        .arg(&key)
        .query_async(&mut direct)
        .await
        .unwrap();
    let cached = cached.expect("the session is cached in Redis");
    assert!(
        !key.contains(&token) && !String::from_utf8_lossy(&cached).contains(&token),
        "Redis holds neither the token nor a key made of it"
    );

    // An entry written by someone else (without the MAC key) is ignored: the database answers.
    let mut forged = gatehouse_proto::session::v1::GetSessionResponse::decode(&cached[40..])
        .expect("MAC, the time it was written, then the protobuf entry");
    forged.user.as_mut().unwrap().name = "Forged in Redis".into();
    let mut forged_bytes = cached[..40].to_vec();
    forged_bytes.extend(forged.encode_to_vec());
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg(forged_bytes)
        .arg("EX")
        .arg(60)
        .query_async(&mut direct)
        .await
        .unwrap();
    assert_eq!(
        session_name(&stack, &first_jar).await.as_deref(),
        Some("Test User"),
        "the forged entry is not believed"
    );

    // Reads come from Redis: with the genuine entry back, a rename made in the database
    // behind the services' back (no event) is not seen.
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg(&cached)
        .arg("EX")
        .arg(60)
        .query_async(&mut direct)
        .await
        .unwrap();
    query("UPDATE users SET name = 'Renamed In Database'")
        .execute(&stack.identity_db().await)
        .await
        .unwrap();
    assert_eq!(
        session_name(&stack, &first_jar).await.as_deref(),
        Some("Test User"),
        "served from the cache"
    );

    proxy.cut();
    let signed_in = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(
        signed_in.status, 200,
        "sign-in works without Redis: {}",
        signed_in.text
    );
    let second_jar = signed_in.cookie_header();
    assert_eq!(
        session_name(&stack, &second_jar).await.as_deref(),
        Some("Renamed In Database"),
        "read from the database"
    );
    assert_eq!(
        session_name(&stack, &first_jar).await.as_deref(),
        Some("Renamed In Database"),
        "the database, not the cache"
    );
    let out = stack.post("/sign-out", json!({}), Some(&first_jar)).await;
    assert_eq!(out.status, 200, "sign-out works without Redis");

    proxy.restore();
    let second_key = format!(
        "gatehouse:{}",
        gatehouse_session::session::cache::key(signed_in.json()["token"].as_str().unwrap())
    );
    let back = eventually(Duration::from_secs(10), || {
        let stack = &stack;
        let second_jar = &second_jar;
        let second_key = second_key.clone();
        let mut direct = direct.clone();
        async move {
            session_name(stack, second_jar).await?;
            let exists: bool = redis::cmd("EXISTS")
                .arg(&second_key)
                .query_async(&mut direct)
                .await
                .ok()?;
            exists.then_some(())
        }
    })
    .await;
    assert!(
        back.is_some(),
        "the cache is written again once Redis is back"
    );
    let stale: bool = redis::cmd("EXISTS")
        .arg(&key)
        .query_async(&mut direct)
        .await
        .unwrap();
    assert!(!stale, "the delete made during the outage was replayed");
    assert_eq!(
        stack.get("/get-session", Some(&first_jar)).await.text,
        "null",
        "a session signed out during the outage stays signed out"
    );

    let db = stack.session_db().await;
    let (rows,): (i64,) = query("SELECT COUNT(*) FROM sessions")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(rows, 1);
}
