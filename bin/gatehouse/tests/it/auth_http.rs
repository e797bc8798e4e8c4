//! /api/auth end to end over HTTP: the whole stack in-process (gateway → gRPC → services →
//! SQLite), checked against better-auth's wire behaviour.

use crate::common::{PASSWORD, Reply, Stack, unique_email};
use gatehouse_kit::db::query;
use serde_json::json;

async fn count_users(stack: &Stack) -> i64 {
    let db = stack.identity_db().await;
    query("SELECT COUNT(*) FROM users")
        .fetch_one::<(i64,)>(&db)
        .await
        .unwrap()
        .0
}

#[tokio::test]
async fn sign_up_get_session_sign_out() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let up = stack
        .post(
            "/sign-up/email",
            json!({"name": "Alice", "email": email.to_uppercase(), "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(up.status, 200, "{}", up.text);
    let body = up.json();
    let token = body["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 32);
    assert_eq!(body["user"]["email"], email.as_str(), "stored lower-cased");
    assert_eq!(body["user"]["emailVerified"], false);
    assert_eq!(body["user"]["image"], serde_json::Value::Null);
    let created = body["user"]["createdAt"].as_str().unwrap();
    assert_eq!(created.len(), 24, "ISO with milliseconds: {created}");
    assert!(created.ends_with('Z'));

    let cookie = up
        .set_cookie("better-auth.session_token")
        .expect("session cookie");
    let (value, attributes) = cookie.split_once("; ").unwrap();
    assert!(value.starts_with(&format!("better-auth.session_token={token}.")));
    assert!(
        value.ends_with("%3D"),
        "signature is percent-encoded base64: {value}"
    );
    assert_eq!(attributes, "Max-Age=604800; Path=/; HttpOnly; SameSite=Lax");
    assert!(up.set_cookie("better-auth.dont_remember").is_none());

    let jar = up.cookie_header();
    let session = stack.get("/get-session", Some(&jar)).await;
    assert_eq!(session.status, 200);
    assert_eq!(session.headers["cache-control"], "no-store");
    assert_eq!(session.headers["pragma"], "no-cache");
    let data = session.json();
    assert_eq!(data["session"]["token"], token.as_str());
    assert_eq!(data["session"]["userId"], body["user"]["id"]);
    assert_eq!(data["user"], body["user"]);

    let out = stack.post("/sign-out", json!({}), Some(&jar)).await;
    assert_eq!(out.status, 200);
    assert_eq!(out.json(), json!({"success": true}));
    assert_eq!(
        out.set_cookies(),
        vec![
            "better-auth.session_token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax",
            "better-auth.session_data=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax",
            "better-auth.dont_remember=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax",
        ]
    );
    let after = stack.get("/get-session", Some(&jar)).await;
    assert_eq!(
        (after.status, after.text.as_str()),
        (200, "null"),
        "the old cookie is dead"
    );
    assert_eq!(stack.get("/get-session", None).await.text, "null");
}

#[tokio::test]
async fn sign_in_variants() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    stack.sign_up(&email).await;

    let ok = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    let body = ok.json();
    assert_eq!(body["redirect"], false);
    assert!(body.get("url").is_none());
    assert_eq!(body["user"]["email"], email.as_str());

    let wrong = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": "Wrong-Horse-9"}),
            None,
        )
        .await;
    assert_eq!(wrong.status, 401);
    assert_eq!(
        wrong.text,
        r#"{"message":"Invalid email or password","code":"INVALID_EMAIL_OR_PASSWORD"}"#
    );
    let unknown = stack
        .post(
            "/sign-in/email",
            json!({"email": unique_email(), "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(
        (unknown.status, unknown.text),
        (401, wrong.text.clone()),
        "no account enumeration"
    );

    let callback = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD, "callbackURL": "/dashboard"}),
            None,
        )
        .await;
    assert_eq!(callback.status, 200);
    assert_eq!(callback.headers["location"], "/dashboard");
    assert_eq!(callback.json()["redirect"], true);
    assert_eq!(callback.json()["url"], "/dashboard");

    let short = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD, "rememberMe": false}),
            None,
        )
        .await;
    assert_eq!(short.status, 200);
    let token_cookie = short.set_cookie("better-auth.session_token").unwrap();
    assert!(
        !token_cookie.contains("Max-Age"),
        "browser-session cookie: {token_cookie}"
    );
    let marker = short
        .set_cookie("better-auth.dont_remember")
        .expect("dont_remember cookie");
    assert!(
        marker.starts_with("better-auth.dont_remember=true."),
        "{marker}"
    );
    assert!(!marker.contains("Max-Age"));
    let data = stack
        .get("/get-session", Some(&short.cookie_header()))
        .await
        .json();
    let expires =
        chrono::DateTime::parse_from_rfc3339(data["session"]["expiresAt"].as_str().unwrap())
            .unwrap();
    let left = expires.timestamp() - chrono::Utc::now().timestamp();
    assert!(
        (86_000..=86_400).contains(&left),
        "a one-day session, {left} s left"
    );

    let form = stack
        .http
        .post(stack.url("/sign-in/email"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "email={}&password={PASSWORD}",
            email.replace('@', "%40")
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), 200, "urlencoded sign-in is accepted");
}

#[tokio::test]
async fn bad_input_is_refused_with_better_auths_errors_and_writes_nothing() {
    let stack = Stack::start(&[]).await;
    let existing = unique_email();
    stack.sign_up(&existing).await;
    let before = count_users(&stack).await;

    let raw = |body: &'static str, content_type: Option<&'static str>| {
        let mut request = stack.http.post(stack.url("/sign-up/email")).body(body);
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        request.send()
    };
    let malformed = raw("{\"name\": ", Some("application/json")).await.unwrap();
    assert_eq!(malformed.status(), 400);
    assert_eq!(
        malformed.text().await.unwrap(),
        r#"{"message":"Invalid JSON in request body","code":"BAD_REQUEST"}"#
    );
    let text = raw("name=x", Some("text/plain")).await.unwrap();
    assert_eq!(text.status(), 415);
    assert!(
        text.text()
            .await
            .unwrap()
            .contains("UNSUPPORTED_MEDIA_TYPE")
    );
    let untyped = raw("{}", None).await.unwrap();
    assert_eq!(untyped.status(), 415);

    let email = unique_email();
    let cases: Vec<(serde_json::Value, u16, &str, &str)> = vec![
        (
            json!({"email": email, "password": PASSWORD}),
            400,
            "VALIDATION_ERROR",
            "[body.name] Invalid input: expected string, received undefined",
        ),
        (
            json!({"name": "A", "password": PASSWORD}),
            400,
            "VALIDATION_ERROR",
            "[body.email] Invalid input: expected string, received undefined",
        ),
        (
            json!({"name": "A", "email": "not-an-email", "password": PASSWORD}),
            400,
            "VALIDATION_ERROR",
            "[body.email] Invalid email address",
        ),
        (
            json!({"name": "A", "email": email, "password": ""}),
            400,
            "VALIDATION_ERROR",
            "[body.password] Too small: expected string to have >=1 characters",
        ),
        (
            json!({"name": 5, "email": email, "password": PASSWORD, "rememberMe": "yes"}),
            400,
            "VALIDATION_ERROR",
            "[body.name] Invalid input: expected string, received number; [body.rememberMe] Invalid input: expected boolean, received string",
        ),
        (
            json!({"name": "A", "email": email, "password": "short"}),
            400,
            "PASSWORD_TOO_SHORT",
            "Password too short",
        ),
        (
            json!({"name": "A", "email": email, "password": "x".repeat(129)}),
            400,
            "PASSWORD_TOO_LONG",
            "Password too long",
        ),
        (
            json!({"name": "A", "email": existing.to_uppercase(), "password": PASSWORD}),
            422,
            "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
            "User already exists. Use another email.",
        ),
        (
            json!({"name": "A", "email": email, "password": PASSWORD, "callbackURL": "https://evil.example/"}),
            403,
            "INVALID_CALLBACK_URL",
            "Invalid callbackURL",
        ),
        (
            json!({"name": "A", "email": email, "password": PASSWORD, "callbackURL": "//evil.example"}),
            403,
            "INVALID_CALLBACK_URL",
            "Invalid callbackURL",
        ),
        (
            json!([1, 2]),
            400,
            "VALIDATION_ERROR",
            "[body] Invalid input: expected object, received array",
        ),
    ];
    for (body, status, code, message) in cases {
        let reply = stack.post("/sign-up/email", body.clone(), None).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text);
        assert_eq!(
            reply.error(),
            (code.to_string(), message.to_string()),
            "{body}"
        );
        assert!(
            reply.set_cookies().is_empty(),
            "{body}: no cookie on failure"
        );
    }

    let foreign = stack
        .http
        .post(stack.url("/sign-up/email"))
        .header("origin", "http://evil.example")
        .json(&json!({"name": "A", "email": unique_email(), "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    assert_eq!(
        foreign.text().await.unwrap(),
        r#"{"message":"Invalid origin","code":"INVALID_ORIGIN"}"#
    );
    let navigation = stack
        .http
        .post(stack.url("/sign-in/email"))
        .header("sec-fetch-site", "cross-site")
        .header("sec-fetch-mode", "navigate")
        .json(&json!({"email": existing, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(navigation.status(), 403);
    assert!(
        navigation
            .text()
            .await
            .unwrap()
            .contains("CROSS_SITE_NAVIGATION_LOGIN_BLOCKED")
    );

    let missing_password = stack
        .post("/sign-in/email", json!({"email": existing}), None)
        .await;
    assert_eq!(missing_password.status, 400);
    assert_eq!(
        missing_password.error().1,
        "[body.password] Invalid input: expected string, received undefined"
    );
    let bad_sign_in_email = stack
        .post(
            "/sign-in/email",
            json!({"email": "nope", "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(
        bad_sign_in_email.error(),
        ("INVALID_EMAIL".into(), "Invalid email".into())
    );

    assert_eq!(
        count_users(&stack).await,
        before,
        "no bad request wrote a user"
    );
}

#[tokio::test]
async fn cookie_bearing_posts_need_a_trusted_origin() {
    let stack = Stack::start(&[("TRUSTED_ORIGINS", "https://app.example.com")]).await;
    let up = stack.sign_up(&unique_email()).await;
    let jar = up.cookie_header();
    let send = |origin: Option<&'static str>| {
        let mut request = stack
            .http
            .post(stack.url("/sign-out"))
            .header("cookie", jar.clone())
            .json(&json!({}));
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    let none = send(None).await.unwrap();
    assert_eq!(none.status(), 403);
    assert!(
        none.text()
            .await
            .unwrap()
            .contains("MISSING_OR_NULL_ORIGIN")
    );
    let evil = send(Some("http://evil.example")).await.unwrap();
    assert_eq!(evil.status(), 403);
    assert!(evil.text().await.unwrap().contains("INVALID_ORIGIN"));
    assert_eq!(
        stack.get("/get-session", Some(&jar)).await.json()["session"]["token"],
        up.json()["token"],
        "still signed in"
    );
    let trusted = send(Some("https://app.example.com")).await.unwrap();
    assert_eq!(trusted.status(), 200, "a configured trusted origin passes");
}

#[tokio::test]
async fn routing_matches_better_call() {
    let stack = Stack::start(&[]).await;
    let ok = stack.get("/ok", None).await;
    assert_eq!((ok.status, ok.text.as_str()), (200, r#"{"ok":true}"#));
    for (method, path) in [
        ("GET", "/nope"),
        ("GET", "/get-session/"),
        ("GET", "/sign-in/email"),
        ("DELETE", "/ok"),
    ] {
        let reply = stack
            .http
            .request(method.parse().unwrap(), stack.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 404, "{method} {path}");
        assert_eq!(
            reply.text().await.unwrap(),
            "",
            "{method} {path}: empty body"
        );
    }
    let post_session = stack.post("/get-session", json!({}), None).await;
    assert_eq!(post_session.status, 405);
    assert_eq!(
        post_session.error().0,
        "METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED"
    );

    let page = stack
        .get(
            "/error?error=state_mismatch&error_description=%3Cb%3Ebad%3C%2Fb%3E",
            None,
        )
        .await;
    assert_eq!(page.status, 200);
    assert!(
        page.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.text.contains("CODE: state_mismatch"));
    assert!(
        page.text.contains("&lt;b&gt;bad&lt;/b&gt;"),
        "description is escaped"
    );
    assert!(
        page.text.contains(&format!("href=\"{}/\"", stack.origin)),
        "links back to the app"
    );
    assert!(
        stack
            .get("/error?error=%3Cscript%3E", None)
            .await
            .text
            .contains("CODE: UNKNOWN")
    );
}

#[tokio::test]
async fn tampered_and_foreign_cookies_are_no_session() {
    let stack = Stack::start(&[]).await;
    let up = stack.sign_up(&unique_email()).await;
    let token = up.json()["token"].as_str().unwrap().to_string();
    let unsigned = format!("better-auth.session_token={token}");
    assert_eq!(
        stack.get("/get-session", Some(&unsigned)).await.text,
        "null"
    );
    let forged = format!("better-auth.session_token={token}.{}", "A".repeat(43) + "=");
    assert_eq!(stack.get("/get-session", Some(&forged)).await.text, "null");
}

#[tokio::test]
async fn rate_limits_answer_429_with_retry_after() {
    let stack = Stack::start(&[
        ("RATE_LIMIT_SIGN_IN_MAX", "3"),
        ("RATE_LIMIT_SIGN_IN_WINDOW", "10"),
    ])
    .await;
    let body = json!({"email": unique_email(), "password": PASSWORD});
    for attempt in 1..=3 {
        let reply = stack.post("/sign-in/email", body.clone(), None).await;
        assert_eq!(reply.status, 401, "attempt {attempt} reaches the handler");
    }
    let limited = stack.post("/sign-in/email", body.clone(), None).await;
    assert_eq!(limited.status, 429);
    assert_eq!(
        limited.error(),
        (
            "TOO_MANY_REQUESTS".into(),
            "Too many requests. Please try again later.".into()
        )
    );
    let retry: u64 = limited.headers["x-retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&retry), "{retry}");
    assert_eq!(
        stack.get("/ok", None).await.status,
        200,
        "other paths have their own bucket"
    );
    let spoofed = stack
        .http
        .post(stack.url("/sign-in/email"))
        .header("x-forwarded-for", "198.51.100.20")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        spoofed.status(),
        429,
        "without TRUSTED_PROXIES a forwarding header does not make a new client"
    );
}

/// Signs up with `x-forwarded-for: xff`; the address the new session recorded.
async fn signed_in_from(stack: &Stack, xff: &str) -> String {
    let request = stack
        .http
        .post(stack.url("/sign-up/email"))
        .header("origin", &stack.origin)
        .header("x-forwarded-for", xff)
        .json(&json!({"email": unique_email(), "password": PASSWORD, "name": "P"}));
    let up = Reply::from(request.send().await.unwrap()).await;
    assert_eq!(up.status, 200, "{}", up.text);
    let cookie = up.cookie_header();
    let listed = stack.get("/list-sessions", Some(&cookie)).await.json();
    listed[0]["ipAddress"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn only_a_trusted_proxy_names_the_client_and_the_session_records_that_address() {
    let direct = Stack::start(&[]).await;
    assert_eq!(
        signed_in_from(&direct, "198.51.100.7").await,
        "127.0.0.1",
        "the socket address, not the header"
    );
    let proxied = Stack::start(&[
        ("TRUSTED_PROXIES", "127.0.0.1"),
        ("RATE_LIMIT_SIGN_IN_MAX", "1"),
    ])
    .await;
    assert_eq!(
        signed_in_from(&proxied, "198.51.100.7").await,
        "198.51.100.7"
    );
    let body = json!({"email": unique_email(), "password": PASSWORD});
    let attempt = |xff: &'static str| {
        proxied
            .http
            .post(proxied.url("/sign-in/email"))
            .header("x-forwarded-for", xff)
            .json(&body)
            .send()
    };
    assert_eq!(attempt("198.51.100.8").await.unwrap().status(), 401);
    assert_eq!(attempt("198.51.100.8").await.unwrap().status(), 429);
    assert_eq!(
        attempt("198.51.100.9").await.unwrap().status(),
        401,
        "behind a trusted proxy, another client has its own bucket"
    );
}

#[tokio::test]
async fn a_wrong_method_counts_against_its_paths_rule() {
    let stack = Stack::start(&[("RATE_LIMIT_SIGN_IN_MAX", "2")]).await;
    for _ in 0..2 {
        assert_eq!(stack.get("/sign-in/email", None).await.status, 404);
    }
    assert_eq!(
        stack.get("/sign-in/email", None).await.status,
        429,
        "GET /sign-in/email is limited by the sign-in rule, in that path's bucket"
    );
    let body = json!({"email": unique_email(), "password": PASSWORD});
    assert_eq!(
        stack.post("/sign-in/email", body, None).await.status,
        429,
        "the path's bucket is shared by every method"
    );
    assert_eq!(stack.get("/no-such-path", None).await.status, 404);
}

#[tokio::test]
async fn the_cookie_cache_answers_without_the_backend_until_bypassed() {
    let stack = Stack::start(&[("COOKIE_CACHE_ENABLED", "true")]).await;
    let up = stack.sign_up(&unique_email()).await;
    let cache_cookie = up
        .set_cookie("better-auth.session_data")
        .expect("session_data cookie");
    assert!(
        cache_cookie.contains("Max-Age=60;"),
        "60 s lifetime: {cache_cookie}"
    );
    let jar = up.cookie_header();
    let token = up.json()["token"].as_str().unwrap().to_string();

    // Remove the session behind the gateway's back: only the cookie cache still knows it.
    let db = stack.session_db().await;
    query("DELETE FROM sessions WHERE token = $1")
        .bind(token.as_str())
        .execute(&db)
        .await
        .unwrap();
    let cached = stack.get("/get-session", Some(&jar)).await;
    assert_eq!(
        cached.json()["session"]["token"],
        token.as_str(),
        "answered from session_data"
    );
    let bypassed = stack
        .get("/get-session?disableCookieCache=true", Some(&jar))
        .await;
    assert_eq!(
        bypassed.text, "null",
        "the database is authoritative when asked"
    );

    let tampered = jar.replace("session_data=", "session_data=x");
    let reply = stack.get("/get-session", Some(&tampered)).await;
    assert_eq!(reply.text, "null");
    assert!(
        reply
            .set_cookies()
            .iter()
            .any(|c| c.starts_with("better-auth.session_data=; Max-Age=0"))
    );
}

#[tokio::test]
async fn secure_cookies_behind_https() {
    let stack = Stack::start(&[("BASE_URL", "https://auth.example.com")]).await;
    let reply = stack
        .http
        .post(stack.url("/sign-up/email"))
        .header("origin", "https://auth.example.com")
        .json(&json!({"name": "S", "email": unique_email(), "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    let cookie = reply.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with("__Secure-better-auth.session_token="),
        "{cookie}"
    );
    assert!(
        cookie.ends_with("Path=/; HttpOnly; Secure; SameSite=Lax"),
        "{cookie}"
    );
}

#[tokio::test]
async fn an_oversized_cookie_cache_is_refused_not_sent() {
    let stack = Stack::start(&[("COOKIE_CACHE_ENABLED", "true")]).await;
    let email = unique_email();
    assert_eq!(stack.sign_up(&email).await.status, 200);
    // A name far past what sign-up accepts, as an import or a later plugin might store.
    let name = "N".repeat(5000);
    query("UPDATE users SET name = $1")
        .bind(name.as_str())
        .execute(&stack.identity_db().await)
        .await
        .unwrap();
    for _ in 0..2 {
        let signed_in = stack
            .post(
                "/sign-in/email",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(signed_in.status, 200, "the sign-in itself succeeds");
        assert!(signed_in.set_cookie("better-auth.session_token").is_some());
        assert!(
            signed_in.set_cookie("better-auth.session_data").is_none(),
            "no cookie browsers would drop"
        );
        assert!(signed_in.set_cookies().iter().all(|c| c.len() <= 4093));
        let session = stack
            .get("/get-session", Some(&signed_in.cookie_header()))
            .await;
        assert_eq!(
            session.json()["user"]["name"],
            name.as_str(),
            "answered by the backend instead"
        );
    }
}

#[tokio::test]
async fn free_text_fields_have_maximum_lengths() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let too_long = [
        (
            "name",
            "N".repeat(256),
            "[body.name] Too big: expected string to have <=255 characters",
        ),
        (
            "image",
            format!("https://example.com/{}", "i".repeat(2048)),
            "[body.image] Too big: expected string to have <=2048 characters",
        ),
    ];
    for (field, value, message) in too_long {
        let mut body = json!({"name": "Ok", "email": email, "password": PASSWORD});
        body[field] = json!(value);
        let refused = stack.post("/sign-up/email", body, None).await;
        assert_eq!(refused.status, 400, "{field}");
        assert_eq!(refused.error(), ("VALIDATION_ERROR".into(), message.into()));
    }
    let long_email = format!("{}@example.com", "e".repeat(250));
    let refused = stack
        .post(
            "/sign-in/email",
            json!({"email": long_email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(refused.status, 400);
    let (users,): (i64,) = query("SELECT COUNT(*) FROM users")
        .fetch_one(&stack.identity_db().await)
        .await
        .unwrap();
    assert_eq!(users, 0, "nothing was created");
}

#[tokio::test]
async fn cookies_split_over_several_headers_are_all_read() {
    let stack = Stack::start(&[]).await;
    let up = stack.sign_up(&unique_email()).await;
    let token_cookie = up.cookie_header();
    let reply = stack
        .http
        .get(stack.url("/get-session"))
        .header("cookie", "theme=dark")
        .header("cookie", token_cookie)
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = reply.json().await.unwrap();
    assert_eq!(
        body["session"]["token"],
        up.json()["token"],
        "the session cookie in the second field counts"
    );
}
