//! `GET /ok` (health) and `GET /error` (the page users land on when a flow fails).

use axum::Json;
use axum::extract::State;
use axum::response::Html;

use super::Meta;
use crate::state::AppState;

pub async fn ok() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "ok": true }))
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
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

pub async fn error_page(State(state): State<AppState>, meta: Meta) -> Html<String> {
    let code = escape_html(error_code(meta.query("error")));
    let description = meta
        .query("error_description")
        .filter(|d| !d.is_empty())
        .map(escape_html)
        .unwrap_or_else(|| {
            "We could not complete that request. Please try again, or go back to the app.".into()
        });
    let home = escape_html(&state.config.base_url.origin().ascii_serialization());
    Html(format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error</title>
<style>
  :root {{ color-scheme: light dark; font-family: system-ui, sans-serif; }}
  body {{ display: grid; place-items: center; min-height: 100vh; margin: 0; }}
  main {{ max-width: 32rem; padding: 2rem; text-align: center; }}
  h1 {{ font-size: 3rem; letter-spacing: .2em; margin: 0 0 .5rem; }}
  code {{ font-size: 1.1rem; }}
  a {{ display: inline-block; margin-top: 1.5rem; padding: .6rem 1.2rem; border: 1px solid currentColor; border-radius: .4rem; text-decoration: none; color: inherit; }}
</style>
</head>
<body>
<main>
  <h1>ERROR</h1>
  <p>Something went wrong</p>
  <p><code>CODE: {code}</code></p>
  <p>{description}</p>
  <a href="{home}/">Go Home</a>
</main>
</body>
</html>
"#
    ))
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
