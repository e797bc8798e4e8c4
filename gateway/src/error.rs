//! The gateway's one error type and its rendering in better-auth's shape `{"message", "code"}`.
//! A service's failure arrives whole (code, message, HTTP status) in its gRPC status, so any
//! code renders without a lookup here.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gatehouse_kit::errors::{ErrorCode, Failure, base};

#[derive(Debug)]
pub enum ApiError {
    /// A catalogued failure, raised here or by a service.
    Failure(Failure),
    /// No such route (or wrong method): 404 with an empty body, as better-call answers.
    NotFound,
    /// A status with an empty JSON body, as better-auth throws some errors (admin routes
    /// without a session: 401).
    Bare(StatusCode),
    /// Rate limited: 429 with `X-Retry-After` in seconds.
    RateLimited { retry_after_secs: u64 },
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        ApiError::Failure(code.into())
    }
}

impl From<Failure> for ApiError {
    fn from(failure: Failure) -> Self {
        ApiError::Failure(failure)
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> Self {
        let failure = Failure::from_status(&status);
        if failure.is(base::SERVICE_UNAVAILABLE) {
            tracing::warn!(%status, "backend service unavailable");
        } else if failure.is_server_error() {
            tracing::error!(%status, "backend call failed");
        }
        ApiError::Failure(failure)
    }
}

pub fn json_body(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// better-auth's error body, `message` first.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// Human-readable English.
    message: String,
    /// The machine code, e.g. `INVALID_EMAIL_OR_PASSWORD` (absent on the few refusals
    /// better-auth answers with a message only, such as "No fields to update").
    #[serde(skip_serializing_if = "String::is_empty")]
    code: String,
    /// How long to wait, on the api-key plugin's rate-limit refusal (`RATE_LIMITED`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(inline)]
    details: Option<ErrorDetails>,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetails {
    /// Milliseconds until the request would be accepted.
    try_again_in: u64,
}

fn render(failure: &Failure) -> Response {
    let body = serde_json::to_string(&ErrorBody {
        message: failure.message().to_string(),
        code: failure.code().to_string(),
        details: failure
            .try_again_in_ms()
            .map(|try_again_in| ErrorDetails { try_again_in }),
    })
    .unwrap_or_default();
    let status =
        StatusCode::from_u16(failure.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_body(status, body)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Failure(failure) => {
                let mut response = render(&failure);
                // better-auth's rate limiter names the header `X-Retry-After`.
                if let Some(seconds) = failure.retry_after_secs() {
                    response
                        .headers_mut()
                        .insert("x-retry-after", HeaderValue::from(seconds));
                    // A refusal that states its wait in the body is not better-auth's
                    // limiter: it also gets the standard header.
                    if failure.try_again_in_ms().is_some() {
                        response
                            .headers_mut()
                            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                    }
                }
                response
            }
            ApiError::NotFound => StatusCode::NOT_FOUND.into_response(),
            ApiError::Bare(status) => json_body(status, String::new()),
            ApiError::RateLimited { retry_after_secs } => {
                let mut response = render(&base::TOO_MANY_REQUESTS.into());
                response
                    .headers_mut()
                    .insert("x-retry-after", HeaderValue::from(retry_after_secs));
                response
            }
        }
    }
}

/// What the gateway's listener answers when a request outlives `HTTP_REQUEST_TIMEOUT_MS`.
pub fn request_timeout() -> Response {
    ApiError::from(base::REQUEST_TIMEOUT).into_response()
}
