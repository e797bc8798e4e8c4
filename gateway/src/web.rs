//! The web app at `/`: `web/`'s Next.js static export, served from `WEB_DIR` on the same
//! origin as `/api/auth`, so its session cookie needs no CORS.
//!
//! - Every route of the app is a folder with an `index.html` (Next's `trailingSlash`), so a
//!   refresh or a deep link finds its page; `/account` redirects to `/account/`. A page whose
//!   address carries an id (`/accept-invitation/<id>`, the mailed invitation) is served for
//!   any id.
//! - Hashed assets (`/_next/static/…`, their names change with their content) are cached for a
//!   year; everything else is revalidated on each use (`no-cache` with `Last-Modified`).
//! - The build writes `.br` and `.gz` siblings; a client that accepts one gets it.
//! - Unknown paths answer 404 with the app's own 404 page.
//! - The pages may not be framed (clickjacking on a sign-in form).
//! - A path with an empty segment (`//account`) is a 404: ServeDir would answer it with a
//!   redirect to `//account/`, which a browser reads as another host.

use std::path::Path;

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use tower_http::services::{ServeDir, ServeFile};

use crate::brand::Brand;

/// Pages whose address ends in an id the static export cannot know (the mailed invitation
/// link, `/accept-invitation/<id>`): `/<page>/<id>` is served the page's own `index.html`,
/// which reads the id from its address, and `/<page>/<id>/index.txt` its RSC payload (what
/// the app's router fetches, `?_rsc=…`, when it navigates there in the browser).
const PAGES_WITH_AN_ID: &[&str] = &["accept-invitation"];

/// Where Next puts content-hashed files.
const HASHED_ASSETS: &str = "/_next/static/";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";
/// No framing, no plugins, no `<base>` tricks, forms post to this origin only; scripts are
/// added per build ([`page_policy`]).
const CSP: &str = "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'";
/// The build's list of its pages' inline scripts, as CSP hash sources (web/scripts/postbuild.mjs).
const SCRIPT_HASHES: &str = "csp-script-hashes.txt";

/// The static app, or `None` when `dir` has no build (the caller serves 404s instead).
/// `script_sources`: origins whose scripts the pages may load besides their own (the captcha
/// provider's widget).
pub fn router(dir: &Path, script_sources: &[&str], brand: &Brand) -> Option<Router> {
    if !dir.join("index.html").is_file() {
        return None;
    }
    let not_found = ServeFile::new(dir.join("404.html"))
        .precompressed_br()
        .precompressed_gzip();
    let csp = page_policy(dir, script_sources);
    let files = ServeDir::new(dir)
        .append_index_html_on_directories(true)
        .precompressed_br()
        .precompressed_gzip()
        .not_found_service(not_found);
    let mut router = brand_routes(brand);
    for page in PAGES_WITH_AN_ID {
        let index = dir.join(page).join("index.html");
        if index.is_file() {
            let page_file = ServeFile::new(index)
                .precompressed_br()
                .precompressed_gzip();
            router = router
                .route_service(&format!("/{page}/{{id}}"), page_file.clone())
                .route_service(&format!("/{page}/{{id}}/"), page_file);
        }
        let payload = dir.join(page).join("index.txt");
        if payload.is_file() {
            let payload_file = ServeFile::new(payload)
                .precompressed_br()
                .precompressed_gzip();
            router = router.route_service(&format!("/{page}/{{id}}/index.txt"), payload_file);
        }
    }
    Some(
        router
            .fallback_service(files)
            .layer(axum::middleware::from_fn(move |request, next| {
                headers(csp.clone(), request, next)
            })),
    )
}

/// `/brand.json` and `/brand.css`: the operator's brand, read at start (revalidated on use,
/// like the pages, so a restart with another brand shows at once).
fn brand_routes(brand: &Brand) -> Router {
    let json = serde_json::to_string(brand).unwrap_or_else(|_| "{}".into());
    let css = brand.css();
    Router::new()
        .route(
            "/brand.json",
            axum::routing::get(move || {
                let json = json.clone();
                async move { ([(header::CONTENT_TYPE, "application/json")], json) }
            }),
        )
        .route(
            "/brand.css",
            axum::routing::get(move || {
                let css = css.clone();
                async move { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], css) }
            }),
        )
}

/// The pages' policy: [`CSP`], and scripts from this origin plus exactly the inline scripts the
/// build wrote (Next's static export inlines its bootstrap; a nonce cannot reach static files,
/// hashes can). A build without the list gets no `script-src` rather than a broken app.
fn page_policy(dir: &Path, script_sources: &[&str]) -> HeaderValue {
    let hashes = std::fs::read_to_string(dir.join(SCRIPT_HASHES))
        .map(|list| {
            list.lines()
                .map(str::trim)
                .filter(|h| h.starts_with("'sha256-") && h.ends_with('\''))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .ok();
    let policy = match hashes {
        Some(hashes) => {
            let sources: String = script_sources.iter().map(|s| format!(" {s}")).collect();
            format!("{CSP}; script-src 'self' {hashes}{sources}")
        }
        None => {
            tracing::warn!(web_dir = %dir.display(), "no {SCRIPT_HASHES} in the web build: pages go without script-src");
            CSP.to_string()
        }
    };
    HeaderValue::from_str(&policy).unwrap_or_else(|_| HeaderValue::from_static(CSP))
}

async fn headers(csp: HeaderValue, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let hashed = path.starts_with(HASHED_ASSETS);
    // The export's own 404 page is a page like any other to ServeDir; it must not answer 200.
    let not_found_page = matches!(path, "/404/" | "/404" | "/404.html");
    let mut response = if path.contains("//") {
        let mut miss = Response::new(axum::body::Body::from("Not Found"));
        *miss.status_mut() = StatusCode::NOT_FOUND;
        miss
    } else {
        next.run(request).await
    };
    if not_found_page && response.status() == StatusCode::OK {
        *response.status_mut() = StatusCode::NOT_FOUND;
    }
    let ok = matches!(
        response.status(),
        StatusCode::OK | StatusCode::NOT_MODIFIED | StatusCode::PARTIAL_CONTENT
    );
    let cache = if hashed && ok { IMMUTABLE } else { REVALIDATE };
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    // The same URL is brotli, gzip or plain by the request's Accept-Encoding: shared caches
    // must keep them apart.
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(header::CONTENT_SECURITY_POLICY, csp);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use tower::ServiceExt;

    /// A miniature export: two pages, a hashed script with its gzip sibling, the 404 page.
    fn export() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("gatehouse-web-{}", uuid_like()));
        let write = |path: &str, body: &[u8]| {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, body).unwrap();
        };
        write("index.html", b"<!doctype html><title>home</title>");
        write(
            "sign-in/index.html",
            b"<!doctype html><title>sign in</title>",
        );
        write(
            "accept-invitation/index.html",
            b"<!doctype html><title>accept</title>",
        );
        write("accept-invitation/index.txt", b"0:[\"accept payload\"]");
        write("404.html", b"<!doctype html><title>not found</title>");
        write("404/index.html", b"<!doctype html><title>not found</title>");
        write("_next/static/chunks/app-1a2b.js", b"console.log('app')");
        write("_next/static/chunks/app-1a2b.js.gz", b"gzipped bytes");
        write("theme.css", b"body{}");
        write(
            SCRIPT_HASHES,
            b"'sha256-AAAA='\n'sha256-BBBB='\nnot a hash\n",
        );
        dir
    }

    fn uuid_like() -> String {
        format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        )
    }

    async fn get(app: &Router, path: &str, accept_encoding: Option<&str>) -> Response {
        let mut request = Request::get(path);
        if let Some(encoding) = accept_encoding {
            request = request.header(header::ACCEPT_ENCODING, encoding);
        }
        app.clone()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    async fn text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    fn header_of(response: &Response, name: header::HeaderName) -> &str {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    #[tokio::test]
    async fn pages_deep_links_assets_and_misses() {
        let dir = export();
        let app = router(&dir, &[], &Brand::default()).unwrap();

        let home = get(&app, "/", None).await;
        assert_eq!(home.status(), StatusCode::OK);
        assert!(header_of(&home, header::CONTENT_TYPE).starts_with("text/html"));
        assert_eq!(header_of(&home, header::CACHE_CONTROL), "no-cache");
        assert_eq!(header_of(&home, header::X_FRAME_OPTIONS), "DENY");
        assert!(
            header_of(&home, header::CONTENT_SECURITY_POLICY).contains("frame-ancestors 'none'")
        );

        // A deep link without the trailing slash is sent to the page's folder.
        let bare = get(&app, "/sign-in", None).await;
        assert!(bare.status().is_redirection(), "{}", bare.status());
        assert_eq!(header_of(&bare, header::LOCATION), "/sign-in/");
        let page = get(&app, "/sign-in/", None).await;
        assert_eq!(page.status(), StatusCode::OK);
        assert!(text(page).await.contains("sign in"));

        // A mailed invitation's link: the accept page for any id, not a 404.
        for path in ["/accept-invitation/AbC123", "/accept-invitation/AbC123/"] {
            let page = get(&app, path, None).await;
            assert_eq!(page.status(), StatusCode::OK, "{path}");
            assert_eq!(header_of(&page, header::X_FRAME_OPTIONS), "DENY");
            assert!(text(page).await.contains("accept"), "{path}");
        }
        let deeper = get(&app, "/accept-invitation/a/b", None).await;
        assert_eq!(deeper.status(), StatusCode::NOT_FOUND);
        // The operator's brand, next to the pages (none set: the theme's own colours).
        let brand = get(&app, "/brand.json", None).await;
        assert_eq!(brand.status(), StatusCode::OK);
        assert_eq!(header_of(&brand, header::CACHE_CONTROL), "no-cache");
        assert_eq!(text(brand).await, r#"{"name":"Gatehouse"}"#);
        let css = get(&app, "/brand.css", None).await;
        assert!(header_of(&css, header::CONTENT_TYPE).starts_with("text/css"));
        assert_eq!(text(css).await, "");
        // …and the page's payload, which the app's router fetches when it navigates there.
        let payload = get(&app, "/accept-invitation/AbC123/index.txt?_rsc=1x2y", None).await;
        assert_eq!(payload.status(), StatusCode::OK);
        assert!(text(payload).await.contains("accept payload"));

        // Hashed assets: cached for a year, the gzip sibling for clients that take it.
        let script = get(&app, "/_next/static/chunks/app-1a2b.js", Some("gzip")).await;
        assert_eq!(script.status(), StatusCode::OK);
        assert_eq!(header_of(&script, header::CACHE_CONTROL), IMMUTABLE);
        assert_eq!(header_of(&script, header::CONTENT_ENCODING), "gzip");
        assert!(header_of(&script, header::CONTENT_TYPE).contains("javascript"));
        assert_eq!(text(script).await, "gzipped bytes");
        let plain = get(&app, "/_next/static/chunks/app-1a2b.js", None).await;
        assert_eq!(header_of(&plain, header::CONTENT_ENCODING), "");
        assert_eq!(text(plain).await, "console.log('app')");

        // The shared stylesheet is not hashed: revalidated.
        let css = get(&app, "/theme.css", None).await;
        assert!(header_of(&css, header::CONTENT_TYPE).starts_with("text/css"));
        assert_eq!(header_of(&css, header::CACHE_CONTROL), "no-cache");

        // Misses get the app's 404 page with a 404 status, never a hashed-asset cache header;
        // a path climbing out of the folder is a miss too.
        assert_eq!(
            header_of(&script_vary(&app).await, header::VARY),
            "accept-encoding"
        );
        // No redirect to `//sign-in/` (another host to a browser), and the 404 page is a 404.
        for path in [
            "//sign-in",
            "///sign-in",
            "//sign-in?x=1",
            "/sign-in//",
            "/404/",
        ] {
            let miss = get(&app, path, None).await;
            assert_eq!(miss.status(), StatusCode::NOT_FOUND, "{path}");
            assert!(miss.headers().get(header::LOCATION).is_none(), "{path}");
        }
        for path in ["/nope/", "/_next/static/chunks/gone.js", "/../Cargo.toml"] {
            let miss = get(&app, path, None).await;
            assert_eq!(miss.status(), StatusCode::NOT_FOUND, "{path}");
            assert_eq!(
                header_of(&miss, header::CACHE_CONTROL),
                "no-cache",
                "{path}"
            );
            assert!(text(miss).await.contains("not found"), "{path}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn the_pages_may_load_exactly_their_scripts_and_the_captcha_widget() {
        let dir = export();
        let plain = get(&router(&dir, &[], &Brand::default()).unwrap(), "/", None).await;
        assert!(
            header_of(&plain, header::CONTENT_SECURITY_POLICY)
                .ends_with("; script-src 'self' 'sha256-AAAA=' 'sha256-BBBB='")
        );
        let widget = ["https://challenges.cloudflare.com"];
        let with_widget = get(
            &router(&dir, &widget, &Brand::default()).unwrap(),
            "/",
            None,
        )
        .await;
        assert!(
            header_of(&with_widget, header::CONTENT_SECURITY_POLICY).ends_with(
                "; script-src 'self' 'sha256-AAAA=' 'sha256-BBBB=' https://challenges.cloudflare.com"
            )
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    async fn script_vary(app: &Router) -> Response {
        get(app, "/_next/static/chunks/app-1a2b.js", Some("gzip")).await
    }

    #[test]
    fn no_build_means_no_app() {
        assert!(router(Path::new("/definitely/not/here"), &[], &Brand::default()).is_none());
    }
}
