//! A JSON response with the `Set-Cookie` headers a handler adds to it.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

pub struct Reply {
    pub response: Response,
}

impl Reply {
    /// Serialized into a `String`, not through axum's `Json` and its `BytesMut` writer,
    /// which a page of users (hundreds of small writes) was measured to be slower through.
    pub fn json(body: &impl Serialize) -> Self {
        match serde_json::to_string(body) {
            Ok(body) => Self::raw_json(body),
            Err(error) => {
                tracing::error!(%error, "answer not serializable");
                Self {
                    response: crate::error::ApiError::from(
                        gatehouse_kit::errors::base::INTERNAL_SERVER_ERROR,
                    )
                    .into_response(),
                }
            }
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

    pub fn set_cookies(&mut self, cookies: impl IntoIterator<Item = String>) {
        for cookie in cookies {
            self.set_cookie(&cookie);
        }
    }

    /// `302 Found` to `location` (a link the user followed, answered with a page to go to).
    pub fn redirect(location: &str) -> Self {
        let mut response = axum::http::StatusCode::FOUND.into_response();
        match HeaderValue::from_str(location) {
            Ok(value) => {
                response.headers_mut().insert(header::LOCATION, value);
            }
            Err(error) => tracing::warn!(%error, "unencodable redirect target dropped"),
        }
        Self { response }
    }

    /// Never stored by browsers or proxies (session answers).
    pub fn no_store(mut self) -> Self {
        let headers = self.response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
        self
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        self.response
    }
}
