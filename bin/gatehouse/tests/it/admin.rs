//! The admin routes through the whole stack: the first admin made by `gatehouse admin grant`
//! against the running instance, bans that end sessions at once, and impersonation's cookies.
//! Admins acting on admins are in `admin_on_admins.rs`.

use std::time::Duration;

use gatehouse_kit::testing::eventually;
use serde_json::json;

use crate::common::{PASSWORD, Stack, unique_email};

/// `gatehouse admin <action> --email <email>` against the stack's data directory.
fn admin_command(stack: &Stack, action: &str, email: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["admin", action, "--email", email])
        .env_clear()
        .env("DATA_DIR", &stack.data_dir)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

pub(crate) async fn an_admin(stack: &Stack) -> (String, String) {
    let email = unique_email();
    let jar = stack.sign_up(&email).await.cookie_header();
    let granted = admin_command(stack, "grant", &email);
    assert!(granted.status.success(), "{granted:?}");
    (email, jar)
}

#[tokio::test]
async fn the_admin_command_counts_from_the_users_next_request() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let jar = stack.sign_up(&email).await.cookie_header();
    let refused = stack.get("/admin/list-users", Some(&jar)).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.error().0, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS");

    let granted = admin_command(&stack, "grant", &email.to_uppercase());
    assert!(granted.status.success(), "{granted:?}");
    assert!(String::from_utf8_lossy(&granted.stdout).contains("admin"));
    let listed = stack.get("/admin/list-users", Some(&jar)).await;
    assert_eq!(listed.status, 200, "the very next request: {}", listed.text);
    assert_eq!(listed.json()["total"], 1);
    // The session's copy of the user follows through the user.updated event.
    let role = eventually(Duration::from_secs(10), || async {
        let session = stack.get("/get-session", Some(&jar)).await.json();
        (session["user"]["role"] == "admin").then_some(())
    })
    .await;
    assert!(role.is_some(), "get-session shows the role");

    let revoked = admin_command(&stack, "revoke", &email);
    assert!(revoked.status.success(), "{revoked:?}");
    assert_eq!(stack.get("/admin/list-users", Some(&jar)).await.status, 403);
    let typo = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["admin", "grant", "--email", &email, "--role", "admin,root"])
        .env_clear()
        .env("DATA_DIR", &stack.data_dir)
        .output()
        .unwrap();
    assert!(!typo.status.success(), "only known roles: {typo:?}");
    let unknown = admin_command(&stack, "grant", "nobody@example.com");
    assert!(!unknown.status.success());
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("User not found"),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn admin_routes_refuse_signed_out_callers_with_an_empty_401() {
    let stack = Stack::start(&[]).await;
    for (path, body) in [
        ("/admin/ban-user", json!({"userId": "x"})),
        (
            "/admin/create-user",
            json!({"email": "a@example.com", "name": "A"}),
        ),
        (
            "/admin/has-permission",
            json!({"permissions": {"user": ["ban"]}}),
        ),
        ("/admin/stop-impersonating", json!({})),
    ] {
        let reply = stack.post(path, body, None).await;
        assert_eq!((reply.status, reply.text.as_str()), (401, ""), "{path}");
    }
    let reply = stack.get("/admin/list-users", None).await;
    assert_eq!((reply.status, reply.text.as_str()), (401, ""));
}

#[tokio::test]
async fn a_ban_ends_every_session_at_once_and_refuses_sign_in() {
    let stack = Stack::start(&[]).await;
    let (_, admin) = an_admin(&stack).await;
    let email = unique_email();
    let signed_up = stack.sign_up(&email).await;
    let victim = signed_up.cookie_header();
    let user_id = signed_up.json()["user"]["id"].as_str().unwrap().to_string();

    let banned = stack
        .post(
            "/admin/ban-user",
            json!({"userId": user_id, "banReason": "spam"}),
            Some(&admin),
        )
        .await;
    assert_eq!(banned.status, 200, "{}", banned.text);
    assert_eq!(banned.json()["user"]["banned"], true);
    assert_eq!(banned.json()["user"]["banReason"], "spam");
    assert_eq!(
        stack.get("/get-session", Some(&victim)).await.text,
        "null",
        "at once"
    );
    let sign_in = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(sign_in.status, 403);
    assert_eq!(
        sign_in.json(),
        json!({"code": "BANNED_USER", "message": "You have been banned from this application. Please contact support if you believe this is an error."})
    );
    assert!(sign_in.set_cookies().is_empty());

    let unbanned = stack
        .post(
            "/admin/unban-user",
            json!({"userId": user_id}),
            Some(&admin),
        )
        .await;
    assert_eq!(unbanned.json()["user"]["banned"], false);
    let again = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(again.status, 200);
}

#[tokio::test]
async fn impersonation_swaps_the_cookies_and_stopping_restores_the_admin() {
    let stack = Stack::start(&[]).await;
    let (_, admin_jar) = an_admin(&stack).await;
    let admin_session = stack.get("/get-session", Some(&admin_jar)).await.json();
    let email = unique_email();
    let target = stack.sign_up(&email).await.json()["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let started = stack
        .post(
            "/admin/impersonate-user",
            json!({"userId": target}),
            Some(&admin_jar),
        )
        .await;
    assert_eq!(started.status, 200, "{}", started.text);
    let body = started.json();
    assert_eq!(body["user"]["id"], target);
    assert_eq!(
        body["session"]["impersonatedBy"],
        admin_session["user"]["id"]
    );
    let cookies = started.set_cookies();
    let admin_cookie = started
        .set_cookie("better-auth.admin_session")
        .expect("the admin's session is kept");
    assert!(admin_cookie.contains("Max-Age=604800"), "{admin_cookie}");
    let new_token = cookies
        .iter()
        .find(|c| {
            c.starts_with("better-auth.session_token=")
                && !c.starts_with("better-auth.session_token=;")
        })
        .expect("a new session cookie");
    assert!(!new_token.contains("Max-Age"), "session-only: {new_token}");
    // The browser now holds: the new session, dont_remember, admin_session.
    let jar = started.cookie_header();
    let me = stack.get("/get-session", Some(&jar)).await.json();
    assert_eq!(me["user"]["id"], target);
    let at = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(me["session"][field].as_str().unwrap()).unwrap()
    };
    assert_eq!((at("expiresAt") - at("createdAt")).num_seconds(), 3600);

    // The target's own list of sessions does not show the impersonation.
    let listed = stack.get("/list-sessions", Some(&jar)).await.json();
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["impersonatedBy"].is_null())
    );

    let signed_out = stack.post("/sign-out", json!({}), Some(&jar)).await;
    assert_eq!(
        signed_out
            .set_cookie("better-auth.admin_session")
            .as_deref(),
        Some("better-auth.admin_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"),
        "signing out of an impersonation forgets the admin's token too"
    );
    // Again, to stop it this time.
    let started = stack
        .post(
            "/admin/impersonate-user",
            json!({"userId": target}),
            Some(&admin_jar),
        )
        .await;
    assert_eq!(started.status, 200, "{}", started.text);
    let jar = started.cookie_header();
    let stopped = stack
        .post("/admin/stop-impersonating", json!({}), Some(&jar))
        .await;
    assert_eq!(stopped.status, 200, "{}", stopped.text);
    assert_eq!(stopped.json()["user"]["id"], admin_session["user"]["id"]);
    assert_eq!(
        stopped.json()["session"]["token"],
        admin_session["session"]["token"]
    );
    assert_eq!(
        stopped.set_cookie("better-auth.admin_session").as_deref(),
        Some("better-auth.admin_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax")
    );
    assert_eq!(
        stack.get("/get-session", Some(&jar)).await.text,
        "null",
        "the impersonation ended"
    );

    let not_now = stack
        .post("/admin/stop-impersonating", json!({}), Some(&admin_jar))
        .await;
    assert_eq!(
        (not_now.status, not_now.json()),
        (400, json!({"message": "You are not impersonating anyone"}))
    );
}
