//! The OpenAPI document is made from the route registrations: every routed path and method is
//! in it with its request body and error responses, and nothing routed is missing.

use serde_json::{Value, json};

use crate::common::Stack;

/// Every path better-auth's core and plugins answer (protocol reference §8–12). A path that
/// Gatehouse routes must be documented; these are probed with GET and POST.
const KNOWN_PATHS: &[&str] = &[
    "/sign-up/email",
    "/sign-in/email",
    "/sign-in/social",
    "/sign-in/username",
    "/get-session",
    "/sign-out",
    "/list-sessions",
    "/revoke-session",
    "/revoke-sessions",
    "/revoke-other-sessions",
    "/update-user",
    "/update-session",
    "/change-password",
    "/verify-password",
    "/delete-user",
    "/change-email",
    "/send-verification-email",
    "/verify-email",
    "/request-password-reset",
    "/forget-password",
    "/reset-password",
    "/list-accounts",
    "/link-social",
    "/unlink-account",
    "/get-access-token",
    "/refresh-token",
    "/account-info",
    "/ok",
    "/error",
    "/is-username-available",
    "/admin/list-users",
    "/organization/create",
    "/api-key/create",
];
/// Routed but, as in better-auth, not part of the document they serve.
const UNDOCUMENTED: &[&str] = &["/open-api/generate-schema", "/reference"];

async fn document(stack: &Stack) -> Value {
    let reply = stack.get("/open-api/generate-schema", None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["content-type"], "application/json");
    reply.json()
}

fn operation<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let op = &doc["paths"][path][method];
    assert!(op.is_object(), "{method} {path} is documented");
    op
}

#[tokio::test]
async fn the_document_describes_every_route_with_its_body_and_errors() {
    let stack = Stack::start(&[]).await;
    let doc = document(&stack).await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(
        doc["servers"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/auth"),
        "paths are relative to /api/auth"
    );
    for (method, path) in [
        ("post", "/sign-up/email"),
        ("post", "/sign-in/email"),
        ("get", "/get-session"),
        ("post", "/get-session"),
        ("post", "/sign-out"),
        ("get", "/list-sessions"),
        ("get", "/ok"),
        ("get", "/error"),
    ] {
        let op = operation(&doc, method, path);
        let statuses: Vec<&String> = op["responses"].as_object().unwrap().keys().collect();
        if !["/ok", "/error"].contains(&path) {
            assert!(
                statuses.iter().any(|s| s.starts_with('4')),
                "{method} {path} documents its errors: {statuses:?}"
            );
        }
    }
    for path in ["/sign-up/email", "/sign-in/email"] {
        let body = &operation(&doc, "post", path)["requestBody"]["content"];
        assert!(
            body["application/json"]["schema"].is_object(),
            "{path}: {body}"
        );
        assert!(
            body["application/x-www-form-urlencoded"].is_object(),
            "{path}: form posts"
        );
    }
    let sign_up = &operation(&doc, "post", "/sign-up/email")["requestBody"]["content"]["application/json"]
        ["schema"];
    let schema = match sign_up.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            doc["components"]["schemas"][name].clone()
        }
        None => sign_up.clone(),
    };
    assert_eq!(schema["required"], json!(["name", "email", "password"]));
    assert_eq!(schema["properties"]["email"]["format"], "email");
    assert!(
        operation(&doc, "get", "/list-sessions")["responses"]["403"].is_object(),
        "SESSION_NOT_FRESH is documented"
    );
}

#[tokio::test]
async fn everything_documented_is_routed_and_everything_routed_is_documented() {
    let stack = Stack::start(&[]).await;
    let doc = document(&stack).await;
    let paths = doc["paths"].as_object().unwrap();
    for (path, item) in paths {
        for method in item.as_object().unwrap().keys() {
            let request = match method.as_str() {
                "get" => stack.http.get(stack.url(path)),
                "post" => stack
                    .http
                    .post(stack.url(path))
                    .header("origin", &stack.origin)
                    .json(&json!({})),
                other => panic!("unexpected method {other} on {path}"),
            };
            let status = request.send().await.unwrap().status().as_u16();
            assert_ne!(status, 404, "{method} {path} is documented but not routed");
        }
    }
    for path in KNOWN_PATHS.iter().chain(UNDOCUMENTED) {
        for method in ["get", "post"] {
            let request = match method {
                "get" => stack.http.get(stack.url(path)),
                _ => stack
                    .http
                    .post(stack.url(path))
                    .header("origin", &stack.origin)
                    .json(&json!({})),
            };
            let status = request.send().await.unwrap().status().as_u16();
            let documented = doc["paths"][path][method].is_object();
            if UNDOCUMENTED.contains(path) {
                assert!(!documented, "{path} is not listed, as in better-auth");
                continue;
            }
            assert_eq!(
                status != 404,
                documented,
                "{method} {path}: routed={} documented={documented}",
                status != 404
            );
        }
    }
}

#[tokio::test]
async fn the_reference_page_lists_every_operation() {
    let stack = Stack::start(&[]).await;
    let doc = document(&stack).await;
    let page = stack.get("/reference", None).await;
    assert_eq!(page.status, 200);
    assert!(
        page.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    for path in doc["paths"].as_object().unwrap().keys() {
        assert!(page.text.contains(&format!("/api/auth{path}")), "{path}");
    }
    assert!(
        !page.text.contains("<script"),
        "readable without a script from a CDN"
    );
}
