//! The gateway's one error type and its mapping to better-auth's response shape
//! `{"message", "code"}`. Service failures arrive as gRPC statuses carrying the machine code.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gatehouse_kit::ErrorCode;

#[derive(Debug)]
pub enum ApiError {
    /// A catalogued error with its standard message.
    Code(ErrorCode),
    /// A catalogued code with a specific message (validation details).
    WithMessage(ErrorCode, String),
    /// No such route (or wrong method): 404 with an empty body, as better-call answers.
    NotFound,
    /// Rate limited: 429 with `X-Retry-After` in seconds.
    RateLimited { retry_after_secs: u64 },
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        ApiError::Code(code)
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> Self {
        let code = ErrorCode::from_status(&status);
        match code {
            ErrorCode::InternalServerError => {
                tracing::error!(%status, "backend call failed");
                ApiError::Code(code)
            }
            ErrorCode::ServiceUnavailable => {
                tracing::warn!(%status, "backend service unavailable");
                ApiError::Code(code)
            }
            // A tagged status: the service chose the message.
            _ if status.message() != code.message() && !status.message().is_empty() => {
                ApiError::WithMessage(code, status.message().to_string())
            }
            _ => ApiError::Code(code),
        }
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
#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    message: &'a str,
    code: &'a str,
}

fn error_body(code: ErrorCode, message: &str) -> String {
    serde_json::to_string(&ErrorBody {
        message,
        code: code.code(),
    })
    .unwrap_or_default()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Code(code) => json_body(status_of(code), error_body(code, code.message())),
            ApiError::WithMessage(code, message) => {
                json_body(status_of(code), error_body(code, &message))
            }
            ApiError::NotFound => StatusCode::NOT_FOUND.into_response(),
            ApiError::RateLimited { retry_after_secs } => {
                let code = ErrorCode::TooManyRequests;
                let mut response = json_body(status_of(code), error_body(code, code.message()));
                response
                    .headers_mut()
                    .insert("x-retry-after", HeaderValue::from(retry_after_secs));
                response
            }
        }
    }
}

fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
