//! The OpenAPI 3.1 document, built from the route registrations and their types (utoipa), and
//! served where better-auth's openAPI plugin serves it: `GET /open-api/generate-schema` (JSON)
//! and `GET /reference` (a readable page, rendered here so it needs no script from a CDN).

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use utoipa::openapi::path::Operation;
use utoipa::openapi::server::Server;
use utoipa::openapi::{InfoBuilder, OpenApi, RefOr};

pub use crate::error::ErrorBody;
use crate::html::escape_html;
use crate::policy::{self, Policy};
use crate::state::AppState;

mod rules;

pub use rules::DocumentSettings;

/// What a route that reads a body can answer besides its own errors. Its caller
/// requirement's 401 and 403 are added from its types when it is registered
/// ([`crate::extract::refusals`]), never listed here.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum BodyErrors {
    /// `VALIDATION_ERROR` (the input does not match its schema; the message lists every
    /// problem as `[body.field] …`), `BAD_REQUEST` (invalid JSON), or the route's own refusal
    /// (its code says which).
    #[response(status = 400)]
    Invalid(ErrorBody),
    /// `INVALID_ORIGIN`, `MISSING_OR_NULL_ORIGIN`, `CROSS_SITE_NAVIGATION_LOGIN_BLOCKED`, or an
    /// untrusted redirect target (`INVALID_CALLBACK_URL`, `INVALID_REDIRECT_URL`, …).
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// `UNSUPPORTED_MEDIA_TYPE`.
    #[response(status = 415)]
    UnsupportedMediaType(ErrorBody),
    /// `TOO_MANY_REQUESTS`; `X-Retry-After` says when to try again.
    #[response(status = 429)]
    TooManyRequests(ErrorBody),
    /// `SERVICE_UNAVAILABLE`: a backend service is down.
    #[response(status = 503)]
    Unavailable(ErrorBody),
}

/// The errors of an admin route (better-auth §10.5, §10.8), besides its requirement's.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum AdminErrors {
    /// `VALIDATION_ERROR`, or the route's own refusal (`YOU_CANNOT_BAN_YOURSELF`,
    /// `NO_DATA_TO_UPDATE`, `INVALID_ROLE_TYPE`, …).
    #[response(status = 400)]
    Invalid(ErrorBody),
    /// The caller may not: `YOU_ARE_NOT_ALLOWED_TO_…`, or `YOU_CANNOT_…` (an admin acting on
    /// another admin: only `ADMIN_USER_IDS` may); or an origin refusal.
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// `USER_NOT_FOUND`.
    #[response(status = 404)]
    NotFound(ErrorBody),
    /// `TOO_MANY_REQUESTS`; `X-Retry-After` says when to try again.
    #[response(status = 429)]
    TooManyRequests(ErrorBody),
    /// `SERVICE_UNAVAILABLE`: a backend service is down.
    #[response(status = 503)]
    Unavailable(ErrorBody),
}

/// What a POST route of the organization plugin can answer besides its own errors and its
/// requirement's.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum OrganizationErrors {
    /// `VALIDATION_ERROR`, `BAD_REQUEST` (invalid JSON), or the route's own refusal
    /// (`ORGANIZATION_NOT_FOUND`, `NO_ACTIVE_ORGANIZATION`, `MEMBER_NOT_FOUND`, …).
    #[response(status = 400)]
    Invalid(ErrorBody),
    /// The caller's role may not (`YOU_ARE_NOT_ALLOWED_TO_…`), or an origin refusal
    /// (`INVALID_ORIGIN`, …).
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// `UNSUPPORTED_MEDIA_TYPE`.
    #[response(status = 415)]
    UnsupportedMediaType(ErrorBody),
    /// `TOO_MANY_REQUESTS`; `X-Retry-After` says when to try again.
    #[response(status = 429)]
    TooManyRequests(ErrorBody),
    /// `SERVICE_UNAVAILABLE`: a backend service is down.
    #[response(status = 503)]
    Unavailable(ErrorBody),
}

/// What a route that reads its query (a GET) can answer besides its own errors and its
/// requirement's.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum QueryErrors {
    /// `VALIDATION_ERROR` (the query does not match its schema), or the route's own refusal
    /// (its code says which).
    #[response(status = 400)]
    Invalid(ErrorBody),
    /// The route's own refusal (`YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION`, …), or an
    /// untrusted redirect target (`INVALID_CALLBACK_URL`, …).
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// `TOO_MANY_REQUESTS`; `X-Retry-After` says when to try again.
    #[response(status = 429)]
    TooManyRequests(ErrorBody),
    /// `SERVICE_UNAVAILABLE`: a backend service is down.
    #[response(status = 503)]
    Unavailable(ErrorBody),
}

/// A string that is one of `values`: the schema of a list kept where the services read it.
pub fn one_of(values: &[&str]) -> RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .into()
}

/// A query parameter that names one of `values`, or is empty for its default: the schema
/// a derived enum cannot give (it has no empty variant).
pub fn one_of_or_empty(values: &[&str]) -> RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let values = std::iter::once("").chain(values.iter().copied());
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .into()
}

/// One of the gateway's APIs, each with its own document under its own base path.
#[derive(Clone, Copy, Debug)]
pub struct Api {
    pub base_path: &'static str,
    pub title: &'static str,
    pub description: &'static str,
}

/// `/api/auth`: better-auth's protocol.
pub const AUTH: Api = Api {
    base_path: crate::BASE_PATH,
    title: "Gatehouse",
    description: "better-auth's HTTP protocol: accounts, sessions and organizations.",
};

/// `/api/billing`: sellers' webhook endpoints, the event log and replays.
pub const BILLING: Api = Api {
    base_path: crate::BILLING_PATH,
    title: "Gatehouse billing",
    description: "An organization's billing webhooks: its endpoints, the events sent to them, \
                  every attempt, and replays.",
};

/// The errors of every `/api/billing` route besides its own and its requirement's (the
/// intake excepted).
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum BillingErrors {
    /// `VALIDATION_ERROR`, `BAD_REQUEST` (invalid JSON), `NO_ACTIVE_ORGANIZATION` (none named,
    /// none active), or the route's own refusal (`INVALID_ENDPOINT_URL`,
    /// `ENDPOINT_URL_NOT_ALLOWED`, `INVALID_EVENT_TYPE`, `INVALID_REPLAY_RANGE`, …).
    #[response(status = 400)]
    Invalid(ErrorBody),
    /// An origin refusal (`INVALID_ORIGIN`, …).
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// `ENDPOINT_NOT_FOUND` or `EVENT_NOT_FOUND` (also another organization's).
    #[response(status = 404)]
    NotFound(ErrorBody),
    /// `TOO_MANY_REQUESTS`; `X-Retry-After` says when to try again.
    #[response(status = 429)]
    TooManyRequests(ErrorBody),
    /// `SERVICE_UNAVAILABLE`: a backend service is down.
    #[response(status = 503)]
    Unavailable(ErrorBody),
}

/// The document as served: title, version, and the server the paths are relative to.
pub fn finish(mut document: OpenApi, base_url: &url::Url, api: Api) -> OpenApi {
    document.info = InfoBuilder::new()
        .title(api.title)
        .description(Some(api.description))
        .version(env!("CARGO_PKG_VERSION"))
        .build();
    let base = base_url.as_str().trim_end_matches('/');
    document.servers = Some(vec![Server::new(format!("{base}{}", api.base_path))]);
    // The error enums above refer to `ErrorBody` without registering it; a document whose
    // routes name it nowhere else (billing's) would point at nothing.
    document
        .components
        .get_or_insert_with(Default::default)
        .schemas
        .entry("ErrorBody".into())
        .or_insert_with(<ErrorBody as utoipa::PartialSchema>::schema);
    document
}

/// The document as served: the types' schemas, with what the services check written in
/// ([`rules`]).
pub fn served_json(document: &OpenApi, settings: &DocumentSettings) -> String {
    let mut served = serde_json::to_value(document).unwrap_or_else(|error| {
        tracing::error!(%error, "the OpenAPI document does not serialise");
        serde_json::Value::Object(Default::default())
    });
    // The other API's targets are not in this document.
    let _ = rules::apply(&mut served, settings);
    served.to_string()
}

/// The two document routes (rate-limited like any other, not listed in the document).
pub fn router(document: OpenApi, api: Api, settings: &DocumentSettings) -> Router<AppState> {
    let json = Arc::new(served_json(&document, settings));
    let page = Arc::new(reference_page(&document, api.base_path));
    let guard =
        axum::middleware::from_fn(|request, next| policy::guard(Policy::DEFAULT, request, next));
    Router::new()
        .route(
            "/open-api/generate-schema",
            get(move || {
                let json = json.clone();
                async move { json_response(&json) }
            }),
        )
        .route(
            "/reference",
            get(move || {
                let page = page.clone();
                async move { Html(page.as_str().to_string()) }
            }),
        )
        .route_layer(guard)
}

fn json_response(json: &str) -> Response {
    let mut response = (StatusCode::OK, json.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Every operation of the document: its path, its method and the operation.
pub(crate) fn operations(document: &OpenApi) -> Vec<(String, &'static str, &Operation)> {
    let mut out = Vec::new();
    for (path, item) in &document.paths.paths {
        let methods = [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("PATCH", &item.patch),
            ("DELETE", &item.delete),
        ];
        for (method, operation) in methods {
            if let Some(operation) = operation {
                out.push((path.clone(), method, operation));
            }
        }
    }
    out
}

/// A plain page listing every operation: method, path, what it does, its responses.
fn reference_page(document: &OpenApi, base_path: &str) -> String {
    let mut body = String::new();
    for (path, method, operation) in operations(document) {
        let summary = operation.summary.as_deref().unwrap_or_default();
        let description = operation.description.as_deref().unwrap_or_default();
        let id = format!("{method}-{path}").replace(['/', '{', '}'], "-");
        body.push_str(&format!(
            "<section id=\"{}\"><h2><code>{method} {}</code></h2><p>{}</p>",
            escape_html(&id),
            escape_html(&format!("{base_path}{path}")),
            escape_html(summary)
        ));
        if !description.is_empty() && description != summary {
            body.push_str(&format!("<p>{}</p>", escape_html(description)));
        }
        body.push_str("<table><thead><tr><th scope=\"col\">Status</th><th scope=\"col\">Meaning</th></tr></thead><tbody>");
        for (status, response) in &operation.responses.responses {
            let meaning = match response {
                RefOr::T(response) => response.description.as_str(),
                RefOr::Ref(reference) => reference.ref_location.as_str(),
            };
            body.push_str(&format!(
                "<tr><td>{}</td><td>{}</td></tr>",
                escape_html(status),
                escape_html(meaning)
            ));
        }
        body.push_str("</tbody></table></section>\n");
    }
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} API reference</title>
<style>
  :root {{ color-scheme: light dark; font-family: system-ui, sans-serif; }}
  body {{ max-width: 52rem; margin: 0 auto; padding: 2rem; line-height: 1.5; }}
  section {{ border-top: 1px solid #8884; padding: .5rem 0 1rem; }}
  table {{ border-collapse: collapse; }} td, th {{ padding: .2rem .8rem .2rem 0; text-align: left; vertical-align: top; }}
</style>
</head>
<body>
<main>
<h1>{title} API reference</h1>
<p>The machine-readable document is at <a href="{base}/open-api/generate-schema"><code>{base}/open-api/generate-schema</code></a> (OpenAPI {version}).</p>
{body}</main>
</body>
</html>
"#,
        title = escape_html(&document.info.title),
        base = base_path,
        version = "3.1",
    )
}
