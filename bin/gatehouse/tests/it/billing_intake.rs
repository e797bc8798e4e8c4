//! `POST /api/billing/webhooks` through the whole stack: the payments platform's deliveries,
//! signed here by hand as it signs them (HMAC-SHA256 keyed with the secret's text, billing-
//! webhooks reference §2.1), are acknowledged once stored; retries are recognised; refusals
//! answer in the `{message, code}` shape.

use base64::Engine;
use hmac::{KeyInit, Mac};

use crate::common::{Reply, Stack};

const SECRET: &str = "whsec_c3RhbmRhbG9uZSB0ZXN0cyBzZWNyZXQgZm9yIHRoZSBpbnRha2U";

fn url(stack: &Stack) -> String {
    stack.base.replace("/api/auth", "/api/billing/webhooks")
}

/// The reference fixture `name`, compact, as the payments platform sends it.
fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../services/billing-webhook/tests/fixtures/polar/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::to_vec(&value).unwrap()
}

fn signature(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

async fn deliver(stack: &Stack, headers: &[(&str, String)], body: Vec<u8>) -> Reply {
    let mut request = stack
        .http
        .post(url(stack))
        .header("content-type", "application/json")
        .header("user-agent", "polar.sh webhooks");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    Reply::from(request.body(body).send().await.unwrap()).await
}

fn signed(id: &str, body: &[u8]) -> Vec<(&'static str, String)> {
    let now = chrono::Utc::now().timestamp();
    vec![
        ("webhook-id", id.to_string()),
        ("webhook-timestamp", now.to_string()),
        (
            "webhook-signature",
            signature(SECRET.as_bytes(), id, now, body),
        ),
    ]
}

#[tokio::test]
async fn a_signed_delivery_is_acknowledged_once_stored_and_its_retry_recognised() {
    let stack = Stack::start(&[("POLAR_WEBHOOK_SECRET", SECRET)]).await;
    // The largest fixture (a checkout embedding products, prices and a discount).
    let body = fixture("checkout.created");
    let first = deliver(&stack, &signed("msg_checkout", &body), body.clone()).await;
    assert_eq!(first.status, 202, "{}", first.text);
    let id = first.json()["id"].as_str().unwrap().to_string();
    assert_eq!(first.json()["duplicate"], false);

    let retry = deliver(&stack, &signed("msg_checkout", &body), body.clone()).await;
    assert_eq!(retry.status, 200, "{}", retry.text);
    assert_eq!(retry.json()["id"], id.as_str());
    assert_eq!(retry.json()["duplicate"], true);

    // An event type the service has no model for is acknowledged, never a 5xx.
    let unknown =
        br#"{"type":"customer_seat.claimed","timestamp":"2026-11-01T08:00:00Z","data":{}}"#;
    let reply = deliver(&stack, &signed("msg_seat", unknown), unknown.to_vec()).await;
    assert_eq!(reply.status, 202, "{}", reply.text);
}

#[tokio::test]
async fn refusals_name_what_is_wrong_in_the_error_shape() {
    let stack = Stack::start(&[("POLAR_WEBHOOK_SECRET", SECRET)]).await;
    let body = fixture("order.paid");
    let good = signed("msg_order", &body);

    let no_headers = deliver(&stack, &[], body.clone()).await;
    assert_eq!(no_headers.status, 403);
    assert_eq!(
        no_headers.error(),
        (
            "MISSING_REQUIRED_HEADERS".into(),
            "Missing required headers".into()
        )
    );

    let mut reformatted =
        serde_json::to_vec_pretty(&serde_json::from_slice::<serde_json::Value>(&body).unwrap())
            .unwrap();
    let tampered = deliver(&stack, &good, std::mem::take(&mut reformatted)).await;
    assert_eq!(
        tampered.status, 403,
        "the same JSON in other bytes is not what was signed"
    );
    assert_eq!(
        tampered.error(),
        (
            "NO_MATCHING_SIGNATURE_FOUND".into(),
            "No matching signature found".into()
        )
    );

    let old = chrono::Utc::now().timestamp() - 600;
    let stale = vec![
        ("webhook-id", "msg_order".to_string()),
        ("webhook-timestamp", old.to_string()),
        (
            "webhook-signature",
            signature(SECRET.as_bytes(), "msg_order", old, &body),
        ),
    ];
    let reply = deliver(&stack, &stale, body.clone()).await;
    assert_eq!(reply.status, 403);
    assert_eq!(reply.error().1, "Message timestamp too old");

    let huge = vec![b' '; 1024 * 1024 + 1];
    let reply = deliver(&stack, &signed("msg_huge", &huge), huge).await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.error().0, "WEBHOOK_BODY_TOO_LARGE");

    // Nothing refused was stored: the first good delivery is new.
    let reply = deliver(&stack, &good, body).await;
    assert_eq!(reply.status, 202, "{}", reply.text);
}

#[tokio::test]
async fn without_a_secret_deliveries_get_503_so_the_sender_retries() {
    let stack = Stack::start(&[]).await;
    let body = fixture("order.created");
    let reply = deliver(&stack, &signed("msg_1", &body), body).await;
    assert_eq!(reply.status, 503);
    assert_eq!(reply.error().0, "BILLING_WEBHOOKS_NOT_CONFIGURED");
}

#[tokio::test]
async fn a_signed_in_user_reads_their_own_billing_state_and_no_one_elses() {
    let stack = Stack::start(&[("POLAR_WEBHOOK_SECRET", SECRET)]).await;
    let customer_url = stack.base.replace("/api/auth", "/api/billing/customer");
    let read = |cookie: Option<String>| {
        let request = stack.http.get(&customer_url);
        let request = match cookie {
            Some(cookie) => request.header("cookie", cookie),
            None => request,
        };
        async move { Reply::from(request.send().await.unwrap()).await }
    };
    assert_eq!(read(None).await.status, 401);

    let cookie = stack
        .sign_up(&crate::common::unique_email())
        .await
        .cookie_header();
    let user_id = crate::organization::user_id(&stack, &cookie).await;
    let empty = read(Some(cookie.clone())).await;
    assert_eq!(empty.status, 200, "{}", empty.text);
    assert_eq!(empty.json()["state"], serde_json::Value::Null);
    assert_eq!(empty.json()["subscriptions"], serde_json::json!([]));

    // The payments platform tells of this user's customer (external_id = their id): its state
    // and a subscription.
    for (name, pointer) in [
        ("customer.state_changed", "/data/external_id"),
        ("subscription.created", "/data/customer/external_id"),
    ] {
        let mut body: serde_json::Value = serde_json::from_slice(&fixture(name)).unwrap();
        *body.pointer_mut(pointer).unwrap() = serde_json::Value::String(user_id.clone());
        let body = serde_json::to_vec(&body).unwrap();
        let id = format!("msg_state_{name}_{}", gatehouse_kit::ids::new_id());
        let reply = deliver(&stack, &signed(&id, &body), body).await;
        assert_eq!(reply.status, 202, "{name}: {}", reply.text);
    }
    let mut state = serde_json::Value::Null;
    for _ in 0..200 {
        let reply = read(Some(cookie.clone())).await;
        state = reply.json();
        if state["state"].is_object()
            && state["subscriptions"]
                .as_array()
                .is_some_and(|s| !s.is_empty())
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(state["state"]["external_id"], user_id.as_str(), "{state}");
    assert_eq!(state["state"]["active_meters"][0]["balance"], -2840);
    assert_eq!(
        state["state"]["granted_benefits"].as_array().map(Vec::len),
        Some(state_benefits())
    );
    assert_eq!(
        state["subscriptions"][0]["customer"]["external_id"],
        user_id.as_str()
    );

    // Someone else — even with the customer's email, unverified — reads nothing of it.
    let other = stack
        .sign_up(&crate::common::unique_email())
        .await
        .cookie_header();
    let theirs = read(Some(other)).await;
    assert_eq!(theirs.json()["state"], serde_json::Value::Null);
    assert_eq!(theirs.json()["subscriptions"], serde_json::json!([]));
}

/// How many benefits the fixture's customer state grants.
fn state_benefits() -> usize {
    let state: serde_json::Value =
        serde_json::from_slice(&fixture("customer.state_changed")).unwrap();
    state["data"]["granted_benefits"].as_array().unwrap().len()
}

#[tokio::test]
async fn owners_and_admins_read_what_was_bought_for_their_organization() {
    let stack = Stack::start(&[("POLAR_WEBHOOK_SECRET", SECRET)]).await;
    let (owner, organization_id) = crate::billing_endpoints::owner_with_organization(&stack).await;
    let (member, admin) = (
        stack
            .sign_up(&crate::common::unique_email())
            .await
            .cookie_header(),
        stack
            .sign_up(&crate::common::unique_email())
            .await
            .cookie_header(),
    );
    for (cookie, role) in [(&member, "member"), (&admin, "admin")] {
        let id = crate::organization::user_id(&stack, cookie).await;
        crate::organization::add_member(&stack, &organization_id, &id, role).await;
    }
    let organization_url = stack.base.replace(
        "/api/auth",
        &format!("/api/billing/customer/organization?organizationId={organization_id}"),
    );
    let read = |cookie: &str| {
        let request = stack.http.get(&organization_url).header("cookie", cookie);
        async move { Reply::from(request.send().await.unwrap()).await }
    };
    let empty = read(&owner).await;
    assert_eq!(empty.status, 200, "{}", empty.text);
    assert_eq!(empty.json()["subscriptions"], serde_json::json!([]));

    // A subscription bought for the organization (better-auth's payments plugin puts its id in
    // the checkout's metadata.referenceId) and the grant of it; fresh ids, as the stack's
    // projections keep only the newest of an id.
    let subscription_id = format!("sub_{}", gatehouse_kit::ids::new_id());
    let mut subscription: serde_json::Value =
        serde_json::from_slice(&fixture("subscription.created")).unwrap();
    subscription["data"]["id"] = subscription_id.clone().into();
    subscription["data"]["metadata"]["referenceId"] = organization_id.clone().into();
    let mut grant: serde_json::Value =
        serde_json::from_slice(&fixture("benefit_grant.created")).unwrap();
    grant["data"]["id"] = format!("grant_{}", gatehouse_kit::ids::new_id()).into();
    grant["data"]["subscription_id"] = subscription_id.clone().into();
    // The grant first: it names only its subscription, and waits for the subscription's event
    // to learn which organization it belongs to.
    for body in [grant, subscription] {
        let body = serde_json::to_vec(&body).unwrap();
        let id = format!("msg_org_{}", gatehouse_kit::ids::new_id());
        let reply = deliver(&stack, &signed(&id, &body), body).await;
        assert_eq!(reply.status, 202, "{}", reply.text);
    }
    let mut state = serde_json::Value::Null;
    for _ in 0..200 {
        state = read(&admin).await.json();
        if state["benefitGrants"]
            .as_array()
            .is_some_and(|g| !g.is_empty())
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(state["organizationId"], organization_id.as_str(), "{state}");
    assert_eq!(state["subscriptions"][0]["id"], subscription_id.as_str());
    assert_eq!(
        state["benefitGrants"][0]["subscription_id"],
        subscription_id.as_str()
    );

    // Both are in the organization's event log, the grant included.
    let log_url = stack.base.replace(
        "/api/auth",
        &format!("/api/billing/events?organizationId={organization_id}"),
    );
    let mut types = Vec::new();
    for _ in 0..200 {
        let log = Reply::from(
            stack
                .http
                .get(&log_url)
                .header("cookie", &owner)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(log.status, 200, "{}", log.text);
        types = log.json()["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|event| event["type"].as_str().unwrap().to_string())
            .collect();
        types.sort();
        if types.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(types, ["benefit_grant.created", "subscription.created"]);

    // A member without organization:update, and a stranger, are refused.
    let stranger = stack
        .sign_up(&crate::common::unique_email())
        .await
        .cookie_header();
    for cookie in [&member, &stranger] {
        let refused = read(cookie).await;
        assert_eq!(
            (refused.status, refused.error().0),
            (
                403,
                "YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING".to_string()
            ),
            "{}",
            refused.text
        );
    }
}
