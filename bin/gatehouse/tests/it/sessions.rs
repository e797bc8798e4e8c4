//! `GET /list-sessions`, `POST /revoke-session`, `/revoke-sessions`, `/revoke-other-sessions`
//! (better-auth §8.7–8.10) and the session extractors behind them: who is signed in, whether
//! the session is fresh, refreshed cookies added by the layer.

use std::time::Duration;

use gatehouse_kit::db::query;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::events::v1::{UserDeleted, UserUpdated};
use serde_json::json;

use crate::common::{PASSWORD, Reply, Stack, unique_email};

async fn sign_in(stack: &Stack, email: &str, agent: &str) -> (String, String) {
    let reply = Reply::from(
        stack
            .http
            .post(stack.url("/sign-in/email"))
            .header("origin", &stack.origin)
            .header("user-agent", agent)
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    (
        reply.json()["token"].as_str().unwrap().to_string(),
        reply.cookie_header(),
    )
}

#[tokio::test]
async fn each_browser_of_a_user_sees_every_session_of_that_user_only() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    stack.sign_up(&email).await;
    stack.sign_up(&unique_email()).await;
    let (token_a, jar_a) = sign_in(&stack, &email, "browser-a").await;
    let (token_b, jar_b) = sign_in(&stack, &email, "browser-b").await;

    let listed = stack.get("/list-sessions", Some(&jar_a)).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let sessions = listed.json();
    let sessions = sessions.as_array().expect("an array");
    // The sign-up session, and the two sign-ins; never the other user's.
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    let by_token = |t: &str| sessions.iter().find(|s| s["token"] == t).cloned();
    let a = by_token(&token_a).expect("A listed");
    assert_eq!(a["userAgent"], "browser-a");
    assert_eq!(
        by_token(&token_b).expect("B listed")["userAgent"],
        "browser-b"
    );
    let own = stack.get("/get-session", Some(&jar_a)).await.json();
    assert_eq!(a, own["session"], "the same object get-session shows");
    for session in sessions {
        assert_eq!(session["userId"], own["user"]["id"]);
    }

    stack.post("/sign-out", json!({}), Some(&jar_b)).await;
    let after = stack.get("/list-sessions", Some(&jar_a)).await.json();
    assert!(
        after
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["token"] != token_b.as_str()),
        "a signed-out session is not listed"
    );
    assert_eq!(
        stack
            .post("/list-sessions", json!({}), Some(&jar_a))
            .await
            .status,
        404,
        "GET only"
    );
}

#[tokio::test]
async fn no_session_is_401_and_a_dead_cookie_is_cleared() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    stack.sign_up(&email).await;
    let unauthorized = json!({"message": "Unauthorized", "code": "UNAUTHORIZED"});
    let none = stack.get("/list-sessions", None).await;
    assert_eq!((none.status, none.json()), (401, unauthorized.clone()));
    assert!(none.set_cookies().is_empty());
    let forged = stack
        .get("/list-sessions", Some("better-auth.session_token=abc.def"))
        .await;
    assert_eq!((forged.status, forged.json()), (401, unauthorized.clone()));

    let (_, jar) = sign_in(&stack, &email, "x").await;
    stack.post("/sign-out", json!({}), Some(&jar)).await;
    let dead = stack.get("/list-sessions", Some(&jar)).await;
    assert_eq!((dead.status, dead.json()), (401, unauthorized));
    assert_eq!(
        dead.set_cookie("better-auth.session_token").as_deref(),
        Some("better-auth.session_token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"),
        "a signed cookie whose session is gone is cleared"
    );
}

#[tokio::test]
async fn a_stale_session_is_refused_as_not_fresh() {
    let stack = Stack::start(&[("SESSION_FRESH_AGE", "1")]).await;
    let up = stack.sign_up(&unique_email()).await;
    let jar = up.cookie_header();
    assert_eq!(stack.get("/list-sessions", Some(&jar)).await.status, 200);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let stale = stack.get("/list-sessions", Some(&jar)).await;
    assert_eq!(
        (stale.status, stale.json()),
        (
            403,
            json!({"message": "Session is not fresh", "code": "SESSION_NOT_FRESH"})
        )
    );
    assert_eq!(
        stack.get("/get-session", Some(&jar)).await.status,
        200,
        "still signed in"
    );
}

#[tokio::test]
async fn a_session_slid_while_authenticating_reissues_its_cookie() {
    // Every read is due for a slide: the extractor's refreshed cookie reaches the response.
    let stack = Stack::start(&[("SESSION_UPDATE_AGE", "0")]).await;
    let up = stack.sign_up(&unique_email()).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    let listed = stack.get("/list-sessions", Some(&up.cookie_header())).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let cookie = listed
        .set_cookie("better-auth.session_token")
        .expect("the slid session's cookie is re-issued");
    assert!(cookie.contains("Max-Age=604800"), "{cookie}");
}

/// What update-user and delete-user (next issues) do in identity: the change and its event in
/// one transaction.
async fn change_user(stack: &Stack, user_id: &str, event: impl FnOnce(String) -> OutboxEvent) {
    let identity = stack.identity_db().await;
    let mut tx = identity.begin().await.unwrap();
    query("UPDATE users SET name = $1 WHERE id = $2")
        .bind("Renamed")
        .bind(user_id)
        .execute(&mut tx)
        .await
        .unwrap();
    tx.enqueue(&event(user_id.to_string())).await.unwrap();
    tx.commit().await.unwrap();
}

#[tokio::test]
async fn user_events_reach_the_next_get_session_in_standalone_mode() {
    let stack = Stack::start(&[]).await;
    let up = stack.sign_up(&unique_email()).await;
    let user_id = up.json()["user"]["id"].as_str().unwrap().to_string();
    let jar = up.cookie_header();
    let before = stack.get("/get-session", Some(&jar)).await.json();
    assert_eq!(before["user"]["name"], "Test User", "now cached");

    change_user(&stack, &user_id, |user_id| {
        OutboxEvent::new(&UserUpdated {
            user_id,
            ..Default::default()
        })
    })
    .await;
    let renamed = eventually(Duration::from_secs(10), || async {
        let body = stack.get("/get-session", Some(&jar)).await.json();
        (body["user"]["name"] == "Renamed").then_some(())
    })
    .await;
    assert!(renamed.is_some(), "user.updated evicted the cached session");

    change_user(&stack, &user_id, |user_id| {
        OutboxEvent::new(&UserDeleted { user_id })
    })
    .await;
    let gone = eventually(Duration::from_secs(10), || async {
        (stack.get("/get-session", Some(&jar)).await.text == "null").then_some(())
    })
    .await;
    assert!(
        gone.is_some(),
        "user.deleted ended every session of the user"
    );
}

/// The session requirements on a route of their own (admin routes arrive with the admin issue):
/// BareSession answers 401 with an empty body, as better-auth's admin routes do.
#[tokio::test]
async fn admin_routes_require_a_session_and_refuse_with_an_empty_401() {
    use axum::routing::get;
    use gatehouse_gateway::extract::{BareSession, Input, NoInput};

    let stack = Stack::start(&[]).await;
    let up = stack.sign_up(&unique_email()).await;
    let user_id = up.json()["user"]["id"].as_str().unwrap().to_string();
    let secret = std::fs::read_to_string(format!("{}/secret", stack.data_dir)).unwrap();
    let env = gatehouse_kit::config::Env::from_pairs([
        ("BASE_URL", stack.origin.clone()),
        ("AUTH_SECRET", secret),
        ("IDENTITY_URL", format!("http://{}", stack.identity_addr)),
        ("SESSION_URL", format!("http://{}", stack.session_addr)),
        ("SERVICE_TOKEN", stack.service_token.expose().to_string()),
    ]);
    let state = gatehouse_gateway::state(gatehouse_gateway::GatewayConfig::from_env(&env).unwrap())
        .unwrap();
    async fn whoami(Input { auth, .. }: Input<NoInput, BareSession>) -> String {
        auth.0.user.id
    }
    let app = axum::Router::new()
        .route("/whoami", get(whoami))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            gatehouse_gateway::extract::request_context,
        ))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let signed_in = stack
        .http
        .get(format!("http://{addr}/whoami"))
        .header("cookie", up.cookie_header())
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 200);
    assert_eq!(signed_in.text().await.unwrap(), user_id);
    let anonymous = stack
        .http
        .get(format!("http://{addr}/whoami"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert_eq!(anonymous.headers()["content-type"], "application/json");
    assert_eq!(anonymous.text().await.unwrap(), "", "an empty body");
}

fn tokens(listed: &Reply) -> Vec<String> {
    assert_eq!(listed.status, 200, "{}", listed.text);
    let mut tokens: Vec<String> = listed
        .json()
        .as_array()
        .expect("an array")
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    tokens.sort();
    tokens
}

const CLEARED: &str = "better-auth.session_token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax";

#[tokio::test]
async fn revoke_session_ends_one_of_the_callers_sessions_and_never_anothers() {
    let stack = Stack::start(&[]).await;
    let (alice, bob) = (unique_email(), unique_email());
    stack.sign_up(&alice).await;
    stack.sign_up(&bob).await;
    let (token_a1, jar_a1) = sign_in(&stack, &alice, "a1").await;
    let (token_a2, jar_a2) = sign_in(&stack, &alice, "a2").await;
    let (token_b, jar_b) = sign_in(&stack, &bob, "b").await;
    let ok = json!({"status": true});

    let other_users = stack
        .post("/revoke-session", json!({"token": token_b}), Some(&jar_a1))
        .await;
    assert_eq!((other_users.status, other_users.json()), (200, ok.clone()));
    assert!(other_users.set_cookies().is_empty());
    assert_eq!(
        stack.get("/get-session", Some(&jar_b)).await.json()["session"]["token"],
        token_b.as_str(),
        "Bob's session survives Alice's attempt"
    );

    let revoked = stack
        .post("/revoke-session", json!({"token": token_a2}), Some(&jar_a1))
        .await;
    assert_eq!((revoked.status, revoked.json()), (200, ok.clone()));
    assert!(
        revoked.set_cookies().is_empty(),
        "another session: the caller's cookies stay"
    );
    assert_eq!(stack.get("/get-session", Some(&jar_a2)).await.text, "null");
    assert!(!tokens(&stack.get("/list-sessions", Some(&jar_a1)).await).contains(&token_a2));

    let own = stack
        .post("/revoke-session", json!({"token": token_a1}), Some(&jar_a1))
        .await;
    assert_eq!((own.status, own.json()), (200, ok));
    assert_eq!(
        own.set_cookie("better-auth.session_token").as_deref(),
        Some(CLEARED),
        "the caller's own session: its cookie is cleared"
    );
    assert_eq!(stack.get("/get-session", Some(&jar_a1)).await.text, "null");
}

#[tokio::test]
async fn revoke_other_sessions_keeps_the_current_one_and_revoke_sessions_ends_all() {
    let stack = Stack::start(&[]).await;
    let (alice, bob) = (unique_email(), unique_email());
    stack.sign_up(&alice).await;
    stack.sign_up(&bob).await;
    let (token_a1, jar_a1) = sign_in(&stack, &alice, "a1").await;
    let (_, jar_a2) = sign_in(&stack, &alice, "a2").await;
    let (_, jar_b) = sign_in(&stack, &bob, "b").await;

    let others = stack
        .post("/revoke-other-sessions", json!({}), Some(&jar_a1))
        .await;
    assert_eq!(
        (others.status, others.json()),
        (200, json!({"status": true}))
    );
    assert!(others.set_cookies().is_empty());
    assert_eq!(
        tokens(&stack.get("/list-sessions", Some(&jar_a1)).await),
        vec![token_a1.clone()],
        "the sign-up session and the second sign-in are gone"
    );
    assert_eq!(stack.get("/get-session", Some(&jar_a2)).await.text, "null");

    let (_, jar_a3) = sign_in(&stack, &alice, "a3").await;
    let all = stack
        .post("/revoke-sessions", json!({}), Some(&jar_a3))
        .await;
    assert_eq!((all.status, all.json()), (200, json!({"status": true})));
    assert_eq!(
        all.set_cookie("better-auth.session_token").as_deref(),
        Some(CLEARED)
    );
    for jar in [&jar_a1, &jar_a3] {
        assert_eq!(stack.get("/get-session", Some(jar)).await.text, "null");
    }
    assert_ne!(
        stack.get("/get-session", Some(&jar_b)).await.text,
        "null",
        "another user's sessions are untouched"
    );
}

#[tokio::test]
async fn revoke_routes_refuse_signed_out_callers_and_bad_input_and_change_nothing() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    stack.sign_up(&email).await;
    let (token, jar) = sign_in(&stack, &email, "x").await;
    let unauthorized = json!({"message": "Unauthorized", "code": "UNAUTHORIZED"});
    for path in [
        "/revoke-session",
        "/revoke-sessions",
        "/revoke-other-sessions",
    ] {
        let body = json!({"token": token});
        let anonymous = stack.post(path, body, None).await;
        assert_eq!(
            (anonymous.status, anonymous.json()),
            (401, unauthorized.clone()),
            "{path}"
        );
    }
    let missing = stack.post("/revoke-session", json!({}), Some(&jar)).await;
    assert_eq!(missing.status, 400, "{}", missing.text);
    assert_eq!(missing.error().0, "VALIDATION_ERROR");
    let wrong_type = stack
        .post("/revoke-session", json!({"token": 42}), Some(&jar))
        .await;
    assert_eq!(wrong_type.status, 400, "{}", wrong_type.text);
    let no_origin = Reply::from(
        stack
            .http
            .post(stack.url("/revoke-sessions"))
            .header("cookie", &jar)
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(no_origin.status, 403, "{}", no_origin.text);
    assert_eq!(
        tokens(&stack.get("/list-sessions", Some(&jar)).await).len(),
        2,
        "nothing was revoked"
    );
}
