//! Users' signed tokens as another service meets them: it holds nothing but the JWKS URL and
//! verifies with `gatehouse-jwks`, across a key rotation (the new key found by its `kid`, the
//! old one's tokens still valid for the grace period).

use std::time::Duration;

use crate::common::{Stack, unique_email};
use gatehouse_jwks::{Expectations, KeySet, Settings, VerifyError};
use serde_json::Value;

async fn token(stack: &Stack, cookie: &str) -> String {
    let reply = stack.get("/token", Some(cookie)).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["token"].as_str().unwrap().to_string()
}

fn kid(token: &str) -> String {
    use base64::Engine as _;
    let header = token.split('.').next().unwrap();
    let header: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header)
            .unwrap(),
    )
    .unwrap();
    header["kid"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn another_service_verifies_tokens_with_the_jwks_url_alone_across_a_rotation() {
    let stack = Stack::start(&[("JWT_ROTATION_INTERVAL", "3"), ("JWT_GRACE_PERIOD", "60")]).await;
    let signed_up = stack.sign_up(&unique_email()).await;
    let user_id = signed_up.json()["user"]["id"].as_str().unwrap().to_string();
    let cookie = signed_up.cookie_header();

    // The other service: a JWKS URL, its own HTTP client, and what a token must say.
    let keys = KeySet::new(
        stack.url("/jwks").parse().unwrap(),
        reqwest::Client::new(),
        Settings {
            min_refetch_interval: Duration::from_secs(1),
            ..Settings::default()
        },
    );
    let expect = Expectations::new(stack.origin.clone(), stack.origin.clone());

    let first = token(&stack, &cookie).await;
    let claims: Value = keys.verify(&first, &expect).await.unwrap();
    assert_eq!(claims["sub"], user_id.as_str());
    assert_eq!(claims["email"], signed_up.json()["user"]["email"]);

    // Past the rotation interval the gateway signs with the next key; the service, holding
    // the old set, finds the new kid by refetching once.
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    let second = token(&stack, &cookie).await;
    assert_ne!(
        kid(&second),
        kid(&first),
        "a new key signs after the rotation"
    );
    let claims: Value = keys.verify(&second, &expect).await.unwrap();
    assert_eq!(claims["sub"], user_id.as_str());
    // The first key is still published: its tokens stay valid until they expire.
    let claims: Value = keys.verify(&first, &expect).await.unwrap();
    assert_eq!(claims["sub"], user_id.as_str());

    // A token for another audience is refused.
    let elsewhere = Expectations::new(stack.origin.clone(), "https://other.example");
    assert!(matches!(
        keys.verify::<Value>(&second, &elsewhere).await,
        Err(VerifyError::Audience)
    ));
}

#[tokio::test]
async fn a_burst_for_one_user_costs_one_signature_until_the_user_changes() {
    let stack = Stack::start(&[]).await;
    let signed_up = stack.sign_up(&unique_email()).await;
    let cookie = signed_up.cookie_header();
    let first = token(&stack, &cookie).await;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    // A second later: the same token (better-auth would sign a new one with a newer iat).
    assert_eq!(token(&stack, &cookie).await, first);
    let renamed = stack
        .post(
            "/update-user",
            serde_json::json!({"name": "Renamed"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    let after = token(&stack, &cookie).await;
    assert_ne!(after, first, "the user's new fields make a new token");
    let claims: Value = serde_json::from_slice(
        &base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            after.split('.').nth(1).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(claims["name"], "Renamed");
}
