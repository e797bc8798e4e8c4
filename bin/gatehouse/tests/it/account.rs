//! The account and username routes through the whole stack: a profile change is what the very
//! next get-session shows (whichever cache holds the session), a password change may end every
//! other session, and a username names the same account for the per-account throttle.

use serde_json::json;

use crate::common::{PASSWORD, Reply, Stack, unique_email};

async fn sign_in(stack: &Stack, path: &str, body: serde_json::Value) -> Reply {
    stack.post(path, body, None).await
}

#[tokio::test]
async fn a_profile_change_is_in_the_very_next_get_session_with_either_cache() {
    for cache in ["memory://", "redis://127.0.0.1:6379"] {
        let stack = Stack::start(&[("CACHE_URL", cache)]).await;
        let email = unique_email();
        let jar = stack.sign_up(&email).await.cookie_header();
        // Warm the session cache with the old user.
        let before = stack.get("/get-session", Some(&jar)).await.json();
        assert_eq!(before["user"]["name"], "Test User", "{cache}");

        let username = format!("u_{}", &gatehouse_kit::ids::new_id()[..12]);
        let updated = stack
            .post(
                "/update-user",
                json!({"name": "Alicia", "username": username, "image": "https://img.example.com/a.png"}),
                Some(&jar),
            )
            .await;
        assert_eq!(updated.status, 200, "{cache}: {}", updated.text);
        assert_eq!(updated.json(), json!({"status": true}));
        let reissued = updated
            .set_cookie("better-auth.session_token")
            .expect("the session cookie is re-issued");
        assert!(reissued.contains("Max-Age=604800"), "{reissued}");

        let after = stack.get("/get-session", Some(&jar)).await.json();
        assert_eq!(after["user"]["name"], "Alicia", "{cache}: no stale user");
        assert_eq!(after["user"]["username"], username.to_lowercase());
        assert_eq!(after["user"]["displayUsername"], serde_json::Value::Null);
        assert_eq!(after["user"]["image"], "https://img.example.com/a.png");
        assert_eq!(after["session"]["token"], before["session"]["token"]);
    }
}

#[tokio::test]
async fn change_password_with_revoke_other_sessions_leaves_one_new_session() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let old_jar = stack.sign_up(&email).await.cookie_header();
    let other = sign_in(
        &stack,
        "/sign-in/email",
        json!({"email": email, "password": PASSWORD}),
    )
    .await;
    let other_jar = other.cookie_header();

    let new_password = "Another-Horse-10";
    let changed = stack
        .post(
            "/change-password",
            json!({"currentPassword": PASSWORD, "newPassword": new_password, "revokeOtherSessions": true}),
            Some(&old_jar),
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    let body = changed.json();
    let token = body["token"].as_str().expect("a new token").to_string();
    assert_eq!(body["user"]["email"], email);
    let new_jar = changed.cookie_header();
    for jar in [&old_jar, &other_jar] {
        assert_eq!(stack.get("/get-session", Some(jar)).await.text, "null");
    }
    let listed = stack.get("/list-sessions", Some(&new_jar)).await.json();
    let tokens: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap())
        .collect();
    assert_eq!(tokens, vec![token.as_str()], "only the new session is left");
    let old = sign_in(
        &stack,
        "/sign-in/email",
        json!({"email": email, "password": PASSWORD}),
    )
    .await;
    assert_eq!(old.status, 401);
    let new = sign_in(
        &stack,
        "/sign-in/email",
        json!({"email": email, "password": new_password}),
    )
    .await;
    assert_eq!(new.status, 200);
}

#[tokio::test]
async fn guesses_by_username_and_by_email_count_against_one_account() {
    let stack = Stack::start(&[("TRUSTED_PROXIES", "127.0.0.1")]).await;
    let email = unique_email();
    let username = format!("g_{}", &gatehouse_kit::ids::new_id()[..12]);
    let signed_up = stack
        .post(
            "/sign-up/email",
            json!({"name": "Gus", "email": email, "password": PASSWORD, "username": username}),
            None,
        )
        .await;
    assert_eq!(signed_up.status, 200, "{}", signed_up.text);
    let guess = |n: usize| {
        let (path, body) = if n.is_multiple_of(2) {
            (
                "/sign-in/email",
                json!({"email": email, "password": "wrong-guess-1"}),
            )
        } else {
            (
                "/sign-in/username",
                json!({"username": username.to_uppercase(), "password": "wrong-guess-1"}),
            )
        };
        stack
            .http
            .post(stack.url(path))
            .header("origin", &stack.origin)
            .header("x-forwarded-for", format!("198.51.100.{n}"))
            .json(&body)
    };
    let mut statuses = Vec::new();
    for n in 0..8 {
        statuses.push(Reply::from(guess(n).send().await.unwrap()).await.status);
    }
    assert_eq!(&statuses[..5], &[401; 5], "{statuses:?}");
    assert!(
        statuses[5..].iter().all(|s| *s == 429),
        "the allowance is shared, however the account is named: {statuses:?}"
    );
}
