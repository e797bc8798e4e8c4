//! Captcha on the guarded routes, against a local server that answers as each provider's
//! siteverify does (the real ones cannot be reached here): what each provider is sent, exactly;
//! a refused token, a v3 score below the minimum, a slow provider (timeout) and a broken one
//! (both fail closed); and nothing done for a refused request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::common::{PASSWORD, Stack, unique_email};

/// One request siteverify received: its content type and its fields.
#[derive(Clone, Debug)]
struct Received {
    content_type: String,
    fields: Value,
}

#[derive(Clone, Default)]
struct Siteverify {
    received: Arc<Mutex<Vec<Received>>>,
}

impl Siteverify {
    /// Serves on a free loopback port; the URL of its siteverify.
    async fn start() -> (Self, String) {
        let server = Self::default();
        let app = axum::Router::new()
            .route("/siteverify", axum::routing::post(answer))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/siteverify", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (server, url)
    }

    fn last(&self) -> Received {
        self.received
            .lock()
            .unwrap()
            .last()
            .cloned()
            .expect("siteverify was asked")
    }

    fn count(&self) -> usize {
        self.received.lock().unwrap().len()
    }
}

/// Answers by the token: `pass`, `fail`, `low` (a v3 score of 0.3), `high` (0.9), `slow` (3 s),
/// `broken` (502).
async fn answer(State(server): State<Siteverify>, headers: HeaderMap, body: String) -> Response {
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let fields: Value = if content_type.starts_with("application/json") {
        serde_json::from_str(&body).unwrap_or(Value::Null)
    } else {
        let form: HashMap<String, String> = serde_urlencoded::from_str(&body).unwrap_or_default();
        serde_json::to_value(form).unwrap()
    };
    let token = fields["response"].as_str().unwrap_or_default().to_string();
    server.received.lock().unwrap().push(Received {
        content_type,
        fields,
    });
    match token.as_str() {
        "pass" => axum::Json(json!({"success": true, "hostname": "localhost"})).into_response(),
        "low" => {
            axum::Json(json!({"success": true, "score": 0.3, "action": "signup"})).into_response()
        }
        "high" => {
            axum::Json(json!({"success": true, "score": 0.9, "action": "signup"})).into_response()
        }
        "slow" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            axum::Json(json!({"success": true})).into_response()
        }
        "broken" => StatusCode::BAD_GATEWAY.into_response(),
        _ => axum::Json(json!({"success": false, "error-codes": ["invalid-input-response"]}))
            .into_response(),
    }
}

async fn sign_up(stack: &Stack, email: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = stack
        .http
        .post(stack.url("/sign-up/email"))
        .header("origin", &stack.origin)
        .json(&json!({"name": "Captcha", "email": email, "password": PASSWORD}));
    if let Some(token) = token {
        request = request.header("x-captcha-response", token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn code(body: &Value) -> &str {
    body["code"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn turnstile_guards_sign_up_and_fails_closed() {
    let (siteverify, url) = Siteverify::start().await;
    let stack = Stack::start(&[
        ("CAPTCHA_PROVIDER", "cloudflare-turnstile"),
        ("CAPTCHA_SECRET_KEY", "turnstile-secret"),
        ("CAPTCHA_SITE_KEY", "turnstile-site"),
        ("CAPTCHA_SITE_VERIFY_URL", &url),
        ("CAPTCHA_TIMEOUT_MS", "1000"),
    ])
    .await;
    let config = stack.get("/captcha", None).await.json();
    assert_eq!(
        config,
        json!({"provider": "cloudflare-turnstile", "siteKey": "turnstile-site",
               "endpoints": ["/sign-up/email", "/sign-in/email", "/request-password-reset"]})
    );
    let email = unique_email();

    let (status, body) = sign_up(&stack, &email, None).await;
    assert_eq!((status, code(&body)), (400, "MISSING_RESPONSE"));
    assert_eq!(body["message"], "Missing CAPTCHA response");
    assert_eq!(siteverify.count(), 0, "no token, no question");

    let (status, body) = sign_up(&stack, &email, Some("fail")).await;
    assert_eq!((status, code(&body)), (403, "VERIFICATION_FAILED"));
    assert_eq!(body["message"], "Captcha verification failed");

    let started = Instant::now();
    let (status, body) = sign_up(&stack, &email, Some("slow")).await;
    assert_eq!((status, code(&body)), (500, "UNKNOWN_ERROR"));
    assert!(
        started.elapsed() < Duration::from_millis(2_500),
        "the timeout holds"
    );
    let (status, body) = sign_up(&stack, &email, Some("broken")).await;
    assert_eq!((status, code(&body)), (500, "UNKNOWN_ERROR"));

    // Nothing was created by the refused attempts: the address is still free.
    let (status, body) = sign_up(&stack, &email, Some("pass")).await;
    assert_eq!(status, 200, "{body}");
    let sent = siteverify.last();
    assert_eq!(sent.content_type, "application/json");
    assert_eq!(
        sent.fields,
        json!({"secret": "turnstile-secret", "response": "pass", "remoteip": "127.0.0.1"})
    );

    // Sign-in is guarded too; routes not listed are not.
    let sign_in = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(sign_in.error().0, "MISSING_RESPONSE");
    assert_eq!(stack.get("/ok", None).await.status, 200);
    assert!(
        body["token"].is_string(),
        "the passed sign-up made a session"
    );
}

#[tokio::test]
async fn recaptcha_v3_refuses_a_low_score() {
    let (siteverify, url) = Siteverify::start().await;
    let stack = Stack::start(&[
        ("CAPTCHA_PROVIDER", "google-recaptcha"),
        ("CAPTCHA_SECRET_KEY", "recaptcha-secret"),
        ("CAPTCHA_SITE_VERIFY_URL", &url),
        ("CAPTCHA_MIN_SCORE", "0.5"),
        // Empty means the defaults, as better-auth reads it, not "guard nothing".
        ("CAPTCHA_ENDPOINTS", ""),
    ])
    .await;
    let email = unique_email();
    let (status, body) = sign_up(&stack, &email, Some("low")).await;
    assert_eq!((status, code(&body)), (403, "VERIFICATION_FAILED"));
    let sent = siteverify.last();
    assert_eq!(sent.content_type, "application/x-www-form-urlencoded");
    assert_eq!(
        sent.fields,
        json!({"secret": "recaptcha-secret", "response": "low", "remoteip": "127.0.0.1"})
    );
    let (status, _) = sign_up(&stack, &email, Some("high")).await;
    assert_eq!(status, 200);

    // The password-reset request, under both its names (better-auth 1.4's and the older
    // alias): the alias is no way around the check.
    for path in ["/request-password-reset", "/forget-password"] {
        let reset = |token: Option<&'static str>| {
            let mut request = stack
                .http
                .post(stack.url(path))
                .header("origin", &stack.origin)
                .json(&json!({"email": email}));
            if let Some(token) = token {
                request = request.header("x-captcha-response", token);
            }
            request.send()
        };
        assert_eq!(reset(None).await.unwrap().status(), 400, "{path}");
        assert_eq!(reset(Some("fail")).await.unwrap().status(), 403, "{path}");
        assert_eq!(reset(Some("high")).await.unwrap().status(), 200, "{path}");
    }
}

#[tokio::test]
async fn hcaptcha_sends_its_site_key_and_guards_only_the_configured_endpoints() {
    let (siteverify, url) = Siteverify::start().await;
    let stack = Stack::start(&[
        ("CAPTCHA_PROVIDER", "hcaptcha"),
        ("CAPTCHA_SECRET_KEY", "hcaptcha-secret"),
        ("CAPTCHA_SITE_KEY", "hcaptcha-site"),
        ("CAPTCHA_SITE_VERIFY_URL", &url),
        ("CAPTCHA_ENDPOINTS", "/sign-in/*"),
    ])
    .await;
    let email = unique_email();
    // Sign-up is not listed: no token needed.
    let (status, _) = sign_up(&stack, &email, None).await;
    assert_eq!(status, 200);
    assert_eq!(siteverify.count(), 0);

    let sign_in = |token: &'static str| {
        stack
            .http
            .post(stack.url("/sign-in/email"))
            .header("origin", &stack.origin)
            .header("x-captcha-response", token)
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
    };
    assert_eq!(sign_in("fail").await.unwrap().status(), 403);
    assert_eq!(sign_in("pass").await.unwrap().status(), 200);
    let sent = siteverify.last();
    assert_eq!(sent.content_type, "application/x-www-form-urlencoded");
    assert_eq!(
        sent.fields,
        json!({"secret": "hcaptcha-secret", "response": "pass", "sitekey": "hcaptcha-site",
               "remoteip": "127.0.0.1"})
    );
}

#[tokio::test]
async fn without_a_provider_nothing_is_guarded() {
    let stack = Stack::start(&[]).await;
    assert_eq!(
        stack.get("/captcha", None).await.json(),
        json!({"provider": null, "siteKey": null, "endpoints": []})
    );
    let (status, _) = sign_up(&stack, &unique_email(), None).await;
    assert_eq!(status, 200);
}
