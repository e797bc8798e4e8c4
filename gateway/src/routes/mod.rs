//! `/api/auth`: one module per route group. Unknown paths and wrong methods answer 404 with an
//! empty body, as better-auth's router does; rate limiting runs before routing.

mod email_password;
mod meta;
mod session;

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

use crate::cookie_cache;
use crate::cookies;
use crate::error::ApiError;
use crate::state::AppState;
use crate::wire::SessionWithUser;

pub fn router(state: AppState) -> Router {
    let auth = Router::new()
        .route("/sign-up/email", post(email_password::sign_up))
        .route("/sign-in/email", post(email_password::sign_in))
        .route(
            "/get-session",
            get(session::get_session).post(session::post_get_session),
        )
        .route("/sign-out", post(session::sign_out))
        .route("/ok", get(meta::ok))
        .route("/error", get(meta::error_page))
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::rate_limit::limit,
        ))
        .with_state(state);
    Router::new()
        .nest(crate::BASE_PATH, auth)
        .merge(gatehouse_kit::server::metrics_router())
        .fallback(not_found)
        .layer(axum::middleware::from_fn(
            gatehouse_kit::server::trace_request,
        ))
}

async fn not_found() -> ApiError {
    ApiError::NotFound
}

/// What handlers need to know about the request besides its body.
pub struct Meta {
    pub headers: HeaderMap,
    pub peer: Option<SocketAddr>,
    pub query: Vec<(String, String)>,
}

impl Meta {
    pub fn query(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
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
}

impl<S: Send + Sync> FromRequestParts<S> for Meta {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts
            .uri
            .query()
            .and_then(|q| serde_urlencoded::from_str(q).ok())
            .unwrap_or_default();
        Ok(Self {
            headers: parts.headers.clone(),
            peer: parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0),
            query,
        })
    }
}

/// A JSON response with `Set-Cookie` headers to add.
pub struct Reply {
    pub response: Response,
}

impl Reply {
    pub fn json(body: &impl Serialize) -> Self {
        Self {
            response: Json(body).into_response(),
        }
    }

    /// A body that is already JSON.
    pub fn raw_json(body: String) -> Self {
        Self {
            response: crate::error::json_body(axum::http::StatusCode::OK, body),
        }
    }

    pub fn set_cookie(&mut self, cookie: &str) {
        match HeaderValue::from_str(cookie) {
            Ok(value) => {
                self.response
                    .headers_mut()
                    .append(header::SET_COOKIE, value);
            }
            Err(error) => tracing::error!(%error, "unencodable Set-Cookie value dropped"),
        }
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        self.response
    }
}

impl AppState {
    /// Issues the cookies of a new (or slid) session: the signed token (a browser-session
    /// cookie when not remembered), the dont_remember marker, and the cookie cache when on.
    pub fn set_session_cookies(
        &self,
        reply: &mut Reply,
        meta: &Meta,
        data: &SessionWithUser,
        remember: bool,
    ) {
        let names = &self.cookies.names;
        let secret = &self.config.secret;
        let max_age = remember.then_some(self.config.cookies.session_max_age.as_secs());
        reply.set_cookie(&self.cookies.set(
            &names.session_token,
            &cookies::sign(secret, &data.session.token),
            max_age,
        ));
        if !remember {
            reply.set_cookie(&self.cookies.set(
                &names.dont_remember,
                &cookies::sign(secret, "true"),
                None,
            ));
        } else if meta.cookie(&names.dont_remember).is_some() {
            reply.set_cookie(&self.cookies.expire(&names.dont_remember));
        }
        self.set_cookie_cache(reply, data, remember);
    }

    /// Writes `session_data` when the cookie cache is on; refuses (and logs why) rather than
    /// send a cookie browsers would drop.
    pub fn set_cookie_cache(&self, reply: &mut Reply, data: &SessionWithUser, remember: bool) {
        let settings = &self.config.cookies;
        if !settings.cache_enabled {
            return;
        }
        let max_age = settings.cache_max_age;
        let value = cookie_cache::encode(
            &self.config.secret,
            data,
            gatehouse_kit::ids::now().timestamp_millis(),
            max_age.as_millis() as i64,
        );
        let cookie = self.cookies.set(
            &self.cookies.names.session_data,
            &value,
            remember.then_some(max_age.as_secs()),
        );
        if cookie.len() > cookie_cache::MAX_SET_COOKIE_LENGTH {
            tracing::error!(
                length = cookie.len(),
                limit = cookie_cache::MAX_SET_COOKIE_LENGTH,
                "session_data cookie refused: it is larger than browsers keep. Disable cookie caching (COOKIE_CACHE_ENABLED=false) or reduce the session data"
            );
            return;
        }
        reply.set_cookie(&cookie);
    }

    /// The verified session token from the request's cookie.
    pub fn session_token(&self, meta: &Meta) -> Option<String> {
        let raw = meta.cookie(&self.cookies.names.session_token)?;
        cookies::verify(&self.config.secret, &raw)
    }

    pub fn client_ip(&self, meta: &Meta) -> String {
        crate::client_ip::client_ip(&meta.headers, meta.peer, &self.config.trusted_proxies)
            .map(|ip| ip.to_string())
            .unwrap_or_default()
    }
}
