//! What a handler knows about its request besides its input ([`RequestMeta`]), and the cookies
//! the extractors want on its response ([`ResponseCookies`]). Apart from the extractors so that
//! what reads the request's cookies (the session's) need not depend on them.

use std::sync::{Arc, Mutex};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};

use crate::client_ip::ClientIp;
use crate::cookies;
use crate::policy::Policy;
use crate::state::AppState;

/// `Set-Cookie` values that extractors want on the response (a refreshed session, or the
/// deletion of a dead one's cookies), whatever the handler answers.
#[derive(Clone, Default)]
pub struct ResponseCookies(Arc<Mutex<Vec<String>>>);

impl ResponseCookies {
    pub fn add(&self, cookies: impl IntoIterator<Item = String>) {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend(cookies);
    }

    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// What handlers need to know about the request besides its input.
pub struct RequestMeta {
    pub method: Method,
    pub headers: HeaderMap,
    /// The client address the rate limiter counted this request under.
    pub client: ClientIp,
    pub query: Vec<(String, String)>,
    pub policy: Policy,
    pub response_cookies: ResponseCookies,
    /// The verdict on the request's `x-api-key`, once read.
    pub api_key: crate::extract::api_key::Memo,
    /// The request had no body at all (set by [`crate::extract::Input`]), which routes whose
    /// better-auth body is required refuse even when every field is optional.
    pub body_absent: bool,
}

impl RequestMeta {
    pub(crate) fn from_parts(parts: &Parts) -> Self {
        let query = parts
            .uri
            .query()
            .and_then(|q| serde_urlencoded::from_str(q).ok())
            .unwrap_or_default();
        Self {
            method: parts.method.clone(),
            headers: parts.headers.clone(),
            client: parts
                .extensions
                .get::<ClientIp>()
                .copied()
                .unwrap_or_default(),
            query,
            policy: parts
                .extensions
                .get::<Policy>()
                .copied()
                .unwrap_or_default(),
            response_cookies: parts
                .extensions
                .get::<ResponseCookies>()
                .cloned()
                .unwrap_or_default(),
            api_key: parts
                .extensions
                .get::<crate::extract::api_key::Memo>()
                .cloned()
                .unwrap_or_default(),
            body_absent: false,
        }
    }

    pub fn query(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the request came with no body at all (not even `{}`): better-auth's object
    /// schemas refuse that even when every field is optional, where the validator here reads
    /// it as `{}`. A route whose empty body would act (delete-user) asks.
    pub fn has_no_body(&self) -> bool {
        self.headers
            .get(header::CONTENT_LENGTH)
            .is_none_or(|length| length == "0")
            && !self.headers.contains_key(header::TRANSFER_ENCODING)
    }

    /// better-auth coerces query flags with JavaScript truthiness: any non-empty value is true.
    pub fn query_flag(&self, key: &str) -> bool {
        self.query(key).is_some_and(|v| !v.is_empty())
    }

    pub fn cookie(&self, name: &str) -> Option<String> {
        // HTTP/2 clients may split cookies over several `cookie` fields.
        let joined = self
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join("; ");
        cookies::read(&joined, name).map(|v| v.into_owned())
    }

    pub fn user_agent(&self) -> String {
        self.headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    }

    /// The platform language code the caller's `Accept-Language` asks for (English if none).
    pub fn language(&self) -> i32 {
        let header = self
            .headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok());
        gatehouse_kit::language::Language::from_accept_language(header).code()
    }

    pub(crate) fn reads_query(&self) -> bool {
        matches!(self.method, Method::GET | Method::HEAD)
    }
}

impl FromRequestParts<AppState> for RequestMeta {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Self::from_parts(parts))
    }
}
