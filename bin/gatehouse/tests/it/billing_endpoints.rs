//! `/api/billing`'s management routes through the whole standalone stack (gateway →
//! organization service for the permission → billing-webhook service): an owner registers an
//! endpoint, reveals its secret, sends a test event that a real receiver verifies with the
//! `standardwebhooks` library, and reads it in the event log with its attempts; members without
//! `organization:update`, strangers and signed-out callers are refused in better-auth's error
//! shape and change nothing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::HeaderMap;
use serde_json::{Value, json};

use crate::common::{Reply, Stack, unique_email};
use crate::organization::{add_member, user_id};

/// A fast schedule, and loopback allowed so the receiver here can be reached.
const SETTINGS: &[(&str, &str)] = &[
    ("BILLING_WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8"),
    ("BILLING_WEBHOOK_RETRY_SCHEDULE", "0.05,0.05"),
];

fn billing_url(stack: &Stack, path: &str) -> String {
    format!("{}{path}", stack.base.replace("/api/auth", "/api/billing"))
}

async fn call(
    stack: &Stack,
    method: &str,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
) -> Reply {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = stack
        .http
        .request(method, billing_url(stack, path))
        .header("origin", &stack.origin);
    if let Some(body) = body {
        request = request.json(&body);
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    Reply::from(request.send().await.unwrap()).await
}

/// A loopback receiver that answers 204 and keeps what it got.
async fn receiver() -> (String, Arc<Mutex<Vec<(HeaderMap, Bytes)>>>) {
    let seen: Arc<Mutex<Vec<(HeaderMap, Bytes)>>> = Arc::default();
    let kept = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let kept = kept.clone();
            async move {
                kept.lock().unwrap().push((headers, body));
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

/// Signs up a user who creates an organization (active in their session).
pub(crate) async fn owner_with_organization(stack: &Stack) -> (String, String) {
    let cookie = stack.sign_up(&unique_email()).await.cookie_header();
    let slug = format!(
        "bill-{}",
        gatehouse_kit::ids::random_alphanumeric(8).to_lowercase()
    );
    let created = stack
        .post(
            "/organization/create",
            json!({"name": "Seller", "slug": slug}),
            Some(&cookie),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    (cookie, created.json()["id"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn an_owner_registers_an_endpoint_tests_it_and_reads_the_delivery() {
    let stack = Stack::start(SETTINGS).await;
    let (cookie, organization_id) = owner_with_organization(&stack).await;
    let (url, seen) = receiver().await;

    let created = call(
        &stack,
        "POST",
        "/endpoints",
        Some(json!({"url": url, "description": "orders", "eventTypes": ["order.paid"]})),
        Some(&cookie),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let endpoint = created.json();
    let id = endpoint["id"].as_str().unwrap().to_string();
    assert_eq!(endpoint["organizationId"], organization_id.as_str());
    assert_eq!(endpoint["eventTypes"], json!(["order.paid"]));
    assert_eq!(endpoint["enabled"], true);
    assert!(
        endpoint.get("secret").is_none(),
        "the secret only where asked for"
    );

    let listed = call(&stack, "GET", "/endpoints", None, Some(&cookie)).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json(), json!([endpoint]));

    let secret = call(
        &stack,
        "GET",
        &format!("/endpoints/{id}/secret"),
        None,
        Some(&cookie),
    )
    .await;
    assert_eq!(secret.status, 200);
    assert_eq!(secret.headers["cache-control"], "no-store");
    let secret = secret.json()["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));

    let test = call(
        &stack,
        "POST",
        &format!("/endpoints/{id}/test"),
        Some(json!({})),
        Some(&cookie),
    )
    .await;
    assert_eq!(test.status, 200, "{}", test.text);
    let (event_id, delivery_id) = (
        test.json()["eventId"].as_str().unwrap().to_string(),
        test.json()["deliveryId"].as_str().unwrap().to_string(),
    );

    // The receiver got it, signed for this endpoint's secret.
    let mut delivered = None;
    for _ in 0..200 {
        if let Some(first) = seen.lock().unwrap().first().cloned() {
            delivered = Some(first);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let (headers, body) = delivered.expect("the test event arrives");
    standardwebhooks::Webhook::new(&secret)
        .unwrap()
        .verify(&body, &headers)
        .expect("signed with the endpoint's secret");
    assert_eq!(headers["webhook-id"], delivery_id.as_str());

    // The log shows it, delivered, with the attempt's answer and timing.
    let mut detail = Value::Null;
    for _ in 0..200 {
        let reply = call(
            &stack,
            "GET",
            &format!("/events/{event_id}"),
            None,
            Some(&cookie),
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        detail = reply.json();
        if detail["deliveries"][0]["status"] == "delivered" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(detail["type"], "webhook.test");
    assert_eq!(detail["origin"], "test");
    assert_eq!(detail["payload"]["data"]["endpoint_id"], id.as_str());
    let delivery = &detail["deliveries"][0];
    assert_eq!(delivery["status"], "delivered", "{detail}");
    assert_eq!(delivery["id"], delivery_id.as_str());
    let attempt = &delivery["attemptLog"][0];
    assert_eq!(attempt["responseStatus"], 204);
    assert_eq!(attempt["trigger"], "scheduled");
    assert!(attempt["durationMs"].as_i64().unwrap() >= 0);

    let log = call(
        &stack,
        "GET",
        "/events?type=webhook.test&status=delivered&limit=10&offset=0",
        None,
        Some(&cookie),
    )
    .await;
    assert_eq!(log.status, 200, "{}", log.text);
    assert_eq!(log.json()["events"][0]["id"], event_id.as_str());
    assert_eq!(log.json()["hasMore"], false);
    assert!(
        log.json()["events"][0]["deliveries"][0]
            .get("attemptLog")
            .is_none()
    );

    // Replaying the event sends it once more with the same webhook-id.
    let replay = call(
        &stack,
        "POST",
        &format!("/events/{event_id}/replay"),
        Some(json!({})),
        Some(&cookie),
    )
    .await;
    assert_eq!(replay.status, 200, "{}", replay.text);
    assert_eq!(replay.json()["deliveryIds"], json!([delivery_id]));
    for _ in 0..200 {
        if seen.lock().unwrap().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let second = seen.lock().unwrap()[1].0["webhook-id"].clone();
    assert_eq!(second, delivery_id.as_str());

    // Disable, then remove.
    let disabled = call(
        &stack,
        "PATCH",
        &format!("/endpoints/{id}"),
        Some(json!({"enabled": false})),
        Some(&cookie),
    )
    .await;
    assert_eq!(disabled.status, 200, "{}", disabled.text);
    assert_eq!(disabled.json()["enabled"], false);
    let removed = call(
        &stack,
        "DELETE",
        &format!("/endpoints/{id}"),
        None,
        Some(&cookie),
    )
    .await;
    assert_eq!(removed.status, 200, "{}", removed.text);
    assert_eq!(removed.json(), json!({"status": true}));
    let gone = call(
        &stack,
        "GET",
        &format!("/endpoints/{id}"),
        None,
        Some(&cookie),
    )
    .await;
    assert_eq!(
        (gone.status, gone.error().0.as_str()),
        (404, "ENDPOINT_NOT_FOUND")
    );
}

#[tokio::test]
async fn only_those_who_may_update_the_organization_manage_its_billing() {
    let stack = Stack::start(SETTINGS).await;
    let (owner, organization_id) = owner_with_organization(&stack).await;
    let member = stack.sign_up(&unique_email()).await.cookie_header();
    add_member(
        &stack,
        &organization_id,
        &user_id(&stack, &member).await,
        "member",
    )
    .await;
    let admin = stack.sign_up(&unique_email()).await.cookie_header();
    add_member(
        &stack,
        &organization_id,
        &user_id(&stack, &admin).await,
        "admin",
    )
    .await;
    let stranger = stack.sign_up(&unique_email()).await.cookie_header();
    let named = format!("/endpoints?organizationId={organization_id}");
    let create = json!({"url": "https://hooks.example.com/in", "organizationId": organization_id});

    let refused = |reply: &Reply| (reply.status, reply.error().0);
    let not_allowed = (
        403,
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING".to_string(),
    );
    // A member without organization:update, and someone who is no member at all.
    for cookie in [&member, &stranger] {
        let listed = call(&stack, "GET", &named, None, Some(cookie)).await;
        assert_eq!(refused(&listed), not_allowed, "{}", listed.text);
        let created = call(
            &stack,
            "POST",
            "/endpoints",
            Some(create.clone()),
            Some(cookie),
        )
        .await;
        assert_eq!(refused(&created), not_allowed, "{}", created.text);
    }
    // Signed out; no organization named and none active.
    let signed_out = call(&stack, "GET", &named, None, None).await;
    assert_eq!(refused(&signed_out), (401, "UNAUTHORIZED".to_string()));
    let none_active = call(&stack, "GET", "/endpoints", None, Some(&stranger)).await;
    assert_eq!(
        refused(&none_active),
        (400, "NO_ACTIVE_ORGANIZATION".to_string())
    );

    // An admin may; bad input is refused in the protocol's shape.
    let by_admin = call(&stack, "GET", &named, None, Some(&admin)).await;
    assert_eq!(by_admin.status, 200, "{}", by_admin.text);
    for (body, code) in [
        (
            json!({"url": "ftp://example.com/", "organizationId": organization_id}),
            "INVALID_ENDPOINT_URL",
        ),
        (
            json!({"url": "http://10.1.2.3/hook", "organizationId": organization_id}),
            "ENDPOINT_URL_NOT_ALLOWED",
        ),
        (
            json!({"url": "https://hooks.example.com/in", "eventTypes": ["Order Paid"], "organizationId": organization_id}),
            "INVALID_EVENT_TYPE",
        ),
        (
            json!({"organizationId": organization_id}),
            "VALIDATION_ERROR",
        ),
        (
            json!({"url": 7, "organizationId": organization_id}),
            "VALIDATION_ERROR",
        ),
    ] {
        let reply = call(
            &stack,
            "POST",
            "/endpoints",
            Some(body.clone()),
            Some(&admin),
        )
        .await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.text);
        assert_eq!(reply.error().0, code, "{body}");
    }
    for query in [
        "since=yesterday",
        "limit=0",
        "limit=101",
        "limit=ten",
        "offset=-1",
    ] {
        let bad = call(
            &stack,
            "GET",
            &format!("/events?{query}"),
            None,
            Some(&owner),
        )
        .await;
        assert_eq!(
            refused(&bad),
            (400, "VALIDATION_ERROR".to_string()),
            "{query}"
        );
    }
    let bad_range = call(
        &stack,
        "POST",
        "/events/replay",
        Some(json!({"since": "2999-01-01T00:00:00Z"})),
        Some(&owner),
    )
    .await;
    assert_eq!(
        refused(&bad_range),
        (400, "INVALID_REPLAY_RANGE".to_string())
    );
    let unknown = call(&stack, "GET", "/events/nope", None, Some(&owner)).await;
    assert_eq!(refused(&unknown), (404, "EVENT_NOT_FOUND".to_string()));

    // A cross-site write with the owner's cookie is refused by the origin check.
    let forged = stack
        .http
        .post(billing_url(&stack, "/endpoints"))
        .header("origin", "https://evil.example")
        .header("cookie", &owner)
        .json(&create)
        .send()
        .await
        .unwrap();
    let forged = Reply::from(forged).await;
    assert_eq!(forged.status, 403, "{}", forged.text);

    // Nothing above created anything.
    let listed = call(&stack, "GET", "/endpoints", None, Some(&owner)).await;
    assert_eq!(listed.json(), json!([]));

    // The billing API's own document lists these routes.
    let document = stack
        .http
        .get(billing_url(&stack, "/open-api/generate-schema"))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert!(
        document["servers"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/billing")
    );
    for (path, method) in [
        ("/endpoints", "get"),
        ("/endpoints", "post"),
        ("/endpoints/{endpointId}", "patch"),
        ("/endpoints/{endpointId}", "delete"),
        ("/endpoints/{endpointId}/secret", "get"),
        ("/endpoints/{endpointId}/rotate-secret", "post"),
        ("/endpoints/{endpointId}/test", "post"),
        ("/events", "get"),
        ("/events/{eventId}", "get"),
        ("/events/{eventId}/replay", "post"),
        ("/events/replay", "post"),
    ] {
        assert!(
            document["paths"][path][method].is_object(),
            "{method} {path}"
        );
        assert!(document["paths"][path][method]["responses"]["403"].is_object());
    }
}

#[tokio::test]
async fn test_events_and_replays_are_counted_per_organization() {
    let settings: Vec<(&str, &str)> = SETTINGS
        .iter()
        .copied()
        .chain([
            ("RATE_LIMIT_REPLAY_WINDOW", "60"),
            ("RATE_LIMIT_REPLAY_MAX", "3"),
        ])
        .collect();
    let stack = Stack::start(&settings).await;
    let (cookie, _) = owner_with_organization(&stack).await;
    let (url, _seen) = receiver().await;
    let endpoint = |cookie: String| {
        let (stack, url) = (&stack, url.clone());
        async move {
            let created = call(
                stack,
                "POST",
                "/endpoints",
                Some(json!({"url": url})),
                Some(&cookie),
            )
            .await;
            assert_eq!(created.status, 200, "{}", created.text);
            created.json()["id"].as_str().unwrap().to_string()
        }
    };
    let id = endpoint(cookie.clone()).await;
    let test = format!("/endpoints/{id}/test");

    // Three sends in the window, whichever route: two test events and a replay.
    let first = call(&stack, "POST", &test, Some(json!({})), Some(&cookie)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let event_id = first.json()["eventId"].as_str().unwrap().to_string();
    let second = call(&stack, "POST", &test, Some(json!({})), Some(&cookie)).await;
    assert_eq!(second.status, 200, "{}", second.text);
    let replay = format!("/events/{event_id}/replay");
    let third = call(&stack, "POST", &replay, Some(json!({})), Some(&cookie)).await;
    assert_eq!(third.status, 200, "{}", third.text);

    // The fourth is refused, on every one of those routes, and sends nothing.
    let since = json!({"since": "2020-01-01T00:00:00Z"});
    for (path, body) in [
        (test.as_str(), json!({})),
        (replay.as_str(), json!({})),
        ("/events/replay", since),
    ] {
        let refused = call(&stack, "POST", path, Some(body), Some(&cookie)).await;
        assert_eq!(
            (refused.status, refused.error().0.as_str()),
            (429, "TOO_MANY_REQUESTS"),
            "{path}: {}",
            refused.text
        );
        assert!(refused.headers.contains_key("x-retry-after"), "{path}");
    }
    let listed = call(&stack, "GET", "/events", None, Some(&cookie)).await;
    assert_eq!(listed.json()["events"].as_array().unwrap().len(), 2);

    // Another organization has its own count.
    let (other, _) = owner_with_organization(&stack).await;
    let other_id = endpoint(other.clone()).await;
    let theirs = call(
        &stack,
        "POST",
        &format!("/endpoints/{other_id}/test"),
        Some(json!({})),
        Some(&other),
    )
    .await;
    assert_eq!(theirs.status, 200, "{}", theirs.text);
}
