//! The `meta` group: `GET /ok` (health) and `GET /error` (the page users land on when a flow
//! fails).

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse};

use super::Group;
use crate::extract::RequestMeta;
use crate::html::escape_html;
use crate::policy::Policy;
use crate::state::AppState;

pub fn router() -> Group {
    Group::new()
        .route(route!(ok), Policy::DEFAULT)
        .route(route!(error_page), Policy::DEFAULT)
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Ok {
    ok: bool,
}

/// Health: answers `{"ok": true}` while the gateway serves.
#[utoipa::path(get, path = "/ok", tag = "meta", responses((status = 200, body = Ok, description = "The gateway is serving")))]
async fn ok() -> Json<Ok> {
    Json(Ok { ok: true })
}

/// The error code shown: better-auth only echoes codes made of `'A-Za-z0-9_-`.
fn error_code(raw: Option<&str>) -> &str {
    match raw {
        Some(code)
            if !code.is_empty()
                && code
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "'_-".contains(c)) =>
        {
            code
        }
        _ => "UNKNOWN",
    }
}

const ERROR_PAGE_CSP: &str = "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'; script-src 'none'";

/// The page a browser lands on when a flow fails (`?error=CODE&error_description=…`).
#[utoipa::path(get, path = "/error", tag = "meta",
    params(("error" = Option<String>, Query, description = "The error code shown"),
           ("error_description" = Option<String>, Query, description = "A sentence shown below it")),
    responses((status = 200, content_type = "text/html", description = "An HTML page")))]
async fn error_page(State(state): State<AppState>, meta: RequestMeta) -> impl IntoResponse {
    let code = escape_html(error_code(meta.query("error")));
    let description = meta
        .query("error_description")
        .filter(|d| !d.is_empty())
        .map(escape_html)
        .unwrap_or_else(|| {
            "We could not complete that request. Please try again, or go back to the app.".into()
        });
    let home = escape_html(&state.config.base_url.origin().ascii_serialization());
    // The same framing and sniffing rules as the web app's pages.
    let headers = [
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        // No script at all on this page.
        (header::CONTENT_SECURITY_POLICY, ERROR_PAGE_CSP),
    ];
    let page = Html(format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error · Gatehouse</title>
<link rel="stylesheet" href="/theme.css">
</head>
<body class="error-page">
<main class="card">
  <h1>Something went wrong</h1>
  <p><code>CODE: {code}</code></p>
  <p>{description}</p>
  <a class="button button-primary" href="{home}/">Go Home</a>
</main>
</body>
</html>
"#
    ));
    (headers, page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_codes_are_echoed_and_text_is_escaped() {
        assert_eq!(error_code(Some("state_mismatch")), "state_mismatch");
        assert_eq!(error_code(Some("<script>")), "UNKNOWN");
        assert_eq!(error_code(None), "UNKNOWN");
        assert_eq!(
            escape_html("<b>\"x\" & 'y'</b>"),
            "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"
        );
    }
}
