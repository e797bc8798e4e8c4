//! A local stand-in for providers' APIs, on 127.0.0.1 and a free port, served by kit's own
//! listener (hyper, through the axum `Router` tonic re-exports: identity has no axum of its
//! own). It answers what a test told it to, by path (and query), redirects every
//! `…/authorize` straight back to the `redirect_uri` with a `code` and the `state`, as a
//! provider does once the user consents, and records every request it receives.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gatehouse_kit::listener::{HttpLimits, Protocol, request_timeout_response, serve};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tonic::service::{AxumBody, AxumRouter};

/// One request the stand-in received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: http::HeaderMap,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as a form (`application/x-www-form-urlencoded`).
    pub fn form(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect()
    }
}

#[derive(Default)]
struct Book {
    /// By `path` or `path?query`: the status and JSON to answer.
    answers: HashMap<String, (u16, Value)>,
    seen: Vec<Seen>,
}

/// The stand-in, serving for as long as it is held.
pub struct StandIn {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    book: Arc<Mutex<Book>>,
    shutdown: CancellationToken,
}

impl StandIn {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let book = Arc::new(Mutex::new(Book::default()));
        let shared = book.clone();
        let app = AxumRouter::new().fallback(
            move |method: http::Method, uri: http::Uri, headers: http::HeaderMap, body: String| {
                let book = shared.clone();
                async move { respond(&book, method, uri, headers, body) }
            },
        );
        let shutdown = CancellationToken::new();
        tokio::spawn(serve(
            listener,
            app,
            Protocol::Http1,
            HttpLimits::default(),
            request_timeout_response,
            shutdown.clone(),
        ));
        Self {
            base,
            book,
            shutdown,
        }
    }

    /// Answers `status` and `body` to requests for `path` (`/github/user`), or for `path`
    /// with exactly this query (`/twitter/2/users/me?user.fields=confirmed_email`, as sent).
    pub fn answer(&self, path: &str, status: u16, body: Value) {
        let mut book = self.book.lock().unwrap();
        book.answers.insert(path.to_string(), (status, body));
    }

    /// Every request received so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.book.lock().unwrap().seen.clone()
    }
}

/// A browser at `url`, an authorization URL: where the stand-in sends it back.
pub async fn consent(url: &str) -> url::Url {
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    let response = client.build().unwrap().get(url).send().await.unwrap();
    assert_eq!(response.status(), 302, "{url}");
    url::Url::parse(response.headers()["location"].to_str().unwrap()).unwrap()
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn respond(
    book: &Mutex<Book>,
    method: http::Method,
    uri: http::Uri,
    headers: http::HeaderMap,
    body: String,
) -> http::Response<AxumBody> {
    let path = uri.path().to_string();
    let query: Vec<(String, String)> =
        url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    let mut book = book.lock().unwrap();
    book.seen.push(Seen {
        method: method.to_string(),
        path: path.clone(),
        query: query.clone(),
        headers,
        body,
    });
    let response = http::Response::builder();
    if path.ends_with("/authorize") {
        // The user consented: back to the app with a code naming the provider.
        let param = |key: &str| {
            query
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let provider = path.trim_start_matches('/').split('/').next().unwrap_or("");
        let mut back = url::Url::parse(param("redirect_uri").unwrap_or("http://invalid/")).unwrap();
        back.query_pairs_mut()
            .append_pair("code", &format!("code-{provider}"))
            .append_pair("state", param("state").unwrap_or(""));
        return response
            .status(302)
            .header("location", back.as_str())
            .body(AxumBody::empty())
            .unwrap();
    }
    let with_query = format!("{path}?{}", uri.query().unwrap_or(""));
    let (status, answer) = book
        .answers
        .get(&with_query)
        .or_else(|| book.answers.get(&path))
        .cloned()
        .unwrap_or_else(|| (404, json!({"error": "not_found", "path": with_query})));
    response
        .status(status)
        .header("content-type", "application/json")
        .body(AxumBody::from(answer.to_string()))
        .unwrap()
}
