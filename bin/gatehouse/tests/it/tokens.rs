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
    let stack = Stack::start(&[
        ("JWT_ROTATION_INTERVAL", "3"),
        ("JWT_GRACE_PERIOD", "60"),
        ("JWT_EXPIRES_IN", "60"),
    ])
    .await;
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

#[tokio::test]
async fn set_auth_jwt_comes_with_every_kind_of_session() {
    let stack = Stack::start(&[
        ("JWT_SET_AUTH_HEADER", "true"),
        ("COOKIE_CACHE_ENABLED", "true"),
    ])
    .await;
    let signed_up = stack.sign_up(&unique_email()).await;
    let user_id = signed_up.json()["user"]["id"].as_str().unwrap().to_string();
    let keys = KeySet::new(
        stack.url("/jwks").parse().unwrap(),
        reqwest::Client::new(),
        Settings::default(),
    );
    let expect = Expectations::new(stack.origin.clone(), stack.origin.clone());
    let subject_of = |reply: &crate::common::Reply| {
        let token = reply
            .headers
            .get("set-auth-jwt")
            .and_then(|v| v.to_str().ok())
            .expect("a set-auth-jwt header")
            .to_string();
        let exposed = reply
            .headers
            .get("access-control-expose-headers")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(exposed.contains("set-auth-jwt"), "{exposed}");
        token
    };

    // The session service's answer (the session cookie alone), then the cookie cache's (the
    // session_data cookie sign-up set beside it).
    let cookie = signed_up.cookie_header();
    assert!(cookie.contains("better-auth.session_data="), "{cookie}");
    let token_only: String = cookie
        .split("; ")
        .filter(|c| c.starts_with("better-auth.session_token="))
        .collect();
    let from_service = stack.get("/get-session", Some(&token_only)).await;
    let claims: Value = keys
        .verify(&subject_of(&from_service), &expect)
        .await
        .unwrap();
    assert_eq!(claims["sub"], user_id.as_str());
    let from_cache = stack.get("/get-session", Some(&cookie)).await;
    assert_eq!(from_cache.status, 200);
    let claims: Value = keys
        .verify(&subject_of(&from_cache), &expect)
        .await
        .unwrap();
    assert_eq!(claims["sub"], user_id.as_str());

    // An API key's session.
    let created = stack
        .post(
            "/api-key/create",
            serde_json::json!({"name": "ci"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let key = created.json()["key"].as_str().unwrap().to_string();
    let by_key = stack
        .http
        .get(stack.url("/get-session"))
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    let by_key = crate::common::Reply::from(by_key).await;
    let claims: Value = keys.verify(&subject_of(&by_key), &expect).await.unwrap();
    assert_eq!(claims["sub"], user_id.as_str());

    // Signed out: neither header.
    let anonymous = stack.get("/get-session", None).await;
    assert_eq!(anonymous.text, "null");
    assert!(anonymous.headers.get("set-auth-jwt").is_none());
    assert!(
        anonymous
            .headers
            .get("access-control-expose-headers")
            .is_none()
    );
}
