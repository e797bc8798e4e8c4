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

fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                out.push(reference.clone());
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

async fn billing_document(stack: &Stack) -> Value {
    let url = stack
        .base
        .replace("/api/auth", "/api/billing/open-api/generate-schema");
    stack
        .http
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The schema a body property has, `$ref`s followed.
fn body_property<'a>(doc: &'a Value, path: &str, property: &str) -> &'a Value {
    let schema =
        &operation(doc, "post", path)["requestBody"]["content"]["application/json"]["schema"];
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => &doc["components"]["schemas"][reference.rsplit('/').next().unwrap()],
        None => schema,
    };
    &schema["properties"][property]
}

#[tokio::test]
async fn both_documents_refer_only_to_schemas_they_hold() {
    let stack = Stack::start(&[]).await;
    for doc in [document(&stack).await, billing_document(&stack).await] {
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(!found.is_empty());
        for reference in found {
            let pointer = reference.trim_start_matches('#');
            assert!(
                doc.pointer(pointer).is_some(),
                "{} refers to {reference}, which it does not hold",
                doc["info"]["title"]
            );
        }
    }
}

#[tokio::test]
async fn a_role_is_one_of_the_roles_or_a_list_of_them() {
    // `ORGANIZATION_ROLES` and `ADMIN_CUSTOM_ROLES` add roles; the document names them.
    let stack = Stack::start(&[
        (
            "ORGANIZATION_ROLES",
            r#"{"billing": {"invitation": ["create"]}}"#,
        ),
        ("ADMIN_CUSTOM_ROLES", r#"{"support": {"user": ["list"]}}"#),
    ])
    .await;
    let doc = document(&stack).await;
    for (path, names) in [
        (
            "/organization/invite-member",
            ["owner", "admin", "member", "billing"].as_slice(),
        ),
        (
            "/organization/update-member-role",
            ["owner", "admin", "member", "billing"].as_slice(),
        ),
        ("/admin/set-role", ["admin", "user", "support"].as_slice()),
    ] {
        let role = body_property(&doc, path, "role");
        // Once `allOf: [oneOf…, {type: object}]`, which no value satisfies.
        assert!(
            role.get("allOf").is_none() && role.get("type").is_none(),
            "{path}: {role}"
        );
        let alternatives = role["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{path}: {role}"));
        let one = alternatives.iter().find(|a| a["type"] == "string").unwrap();
        let several = alternatives.iter().find(|a| a["type"] == "array").unwrap();
        assert_eq!(one["enum"], json!(names), "{path}");
        assert_eq!(several["items"]["enum"], json!(names), "{path}");
        assert_eq!(several["minItems"], 1, "{path}");
    }
}

#[tokio::test]
async fn the_document_says_what_the_services_check() {
    let stack = Stack::start(&[
        ("PASSWORD_MIN_LENGTH", "10"),
        ("PASSWORD_MAX_LENGTH", "64"),
        ("USERNAME_MIN_LENGTH", "4"),
        ("USERNAME_MAX_LENGTH", "20"),
    ])
    .await;
    let doc = document(&stack).await;
    let sign_up = |property| body_property(&doc, "/sign-up/email", property);
    assert_eq!(sign_up("password")["minLength"], 10);
    assert_eq!(sign_up("password")["maxLength"], 64);
    assert_eq!(sign_up("username")["pattern"], "^[A-Za-z0-9_.]{4,20}$");
    assert_eq!(
        sign_up("email")["pattern"],
        gatehouse_kit::validate::EMAIL_PATTERN
    );
    assert_eq!(
        sign_up("name")["pattern"],
        gatehouse_kit::validate::NO_CONTROL_CHARACTERS
    );
    assert_eq!(
        sign_up("language")["enum"],
        json!([0, 1, 3, 4, 6, 15, 16, 82, null])
    );
    // Sign-in's schema takes any string (the service answers `INVALID_EMAIL`), but says which.
    let sign_in = |property| body_property(&doc, "/sign-in/email", property);
    assert_eq!(
        sign_in("email")["pattern"],
        gatehouse_kit::validate::EMAIL_PATTERN
    );
    assert_eq!(sign_in("password")["maxLength"], 64);
    assert!(sign_in("password").get("minLength").is_none());
    for (path, property) in [
        ("/change-password", "newPassword"),
        ("/reset-password", "newPassword"),
        ("/admin/set-user-password", "newPassword"),
    ] {
        let password = body_property(&doc, path, property);
        assert_eq!(
            (password["minLength"].clone(), password["maxLength"].clone()),
            (json!(10), json!(64)),
            "{path}"
        );
    }
    // has-permission wants a map of resource to actions.
    let admin = &doc["components"]["schemas"]["HasPermissionBody"];
    assert_eq!(admin["required"], json!(["permissions"]));
    assert_eq!(
        admin["properties"]["permissions"]["additionalProperties"]["items"]["type"],
        "string"
    );
}

#[tokio::test]
async fn an_optional_body_may_be_left_out_but_is_never_null_and_a_form_holds_no_null() {
    let stack = Stack::start(&[]).await;
    let doc = document(&stack).await;
    for path in [
        "/sign-out",
        "/revoke-sessions",
        "/revoke-other-sessions",
        "/admin/stop-impersonating",
        "/organization/set-active",
        "/organization/set-active-team",
    ] {
        let body = &operation(&doc, "post", path)["requestBody"];
        assert_ne!(
            body["required"],
            json!(true),
            "{path}: the server reads no body as {{}}"
        );
        let schema = &body["content"]["application/json"]["schema"];
        assert!(
            schema.get("oneOf").is_none(),
            "{path}: a JSON null body is refused: {schema}"
        );
    }
    let form = &operation(&doc, "post", "/sign-up/email")["requestBody"]["content"]["application/x-www-form-urlencoded"]
        ["schema"];
    for (name, property) in form["properties"].as_object().unwrap() {
        assert!(
            !property["type"].to_string().contains("null"),
            "a form field is text, never null: {name} {property}"
        );
    }
    assert_eq!(
        form["properties"]["email"]["pattern"],
        gatehouse_kit::validate::EMAIL_PATTERN,
        "the form's copy has the rules"
    );
}
