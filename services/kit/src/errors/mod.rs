//! Errors that travel whole. A catalogued [`ErrorCode`] is better-auth's machine code, its
//! message and a default HTTP status; the place that raises it may override the status or the
//! message, which makes a [`Failure`]. A service returns a failure as a gRPC status carrying
//! `google.rpc.ErrorInfo` (reason = code, metadata = HTTP status), so the gateway renders any
//! code without a lookup table and a new code never needs a gateway change.
//!
//! Catalogues are grouped by plugin as better-auth groups them: [`base`] (core),
//! [`username`], [`admin`], [`organization`], [`api_key`], [`captcha`], and [`billing`] for
//! the billing webhooks.

pub mod admin;
pub mod api_key;
pub mod base;
pub mod billing;
pub mod captcha;
pub mod organization;
mod service;
pub mod two_factor;
pub mod username;

pub use service::ServiceError;

use std::borrow::Cow;
use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// `ErrorInfo.domain` of every failure a Gatehouse service raises.
pub const DOMAIN: &str = "gatehouse";
/// `ErrorInfo.metadata` key holding the HTTP status.
const HTTP_STATUS_KEY: &str = "http_status";
/// `ErrorInfo.metadata` key holding how many seconds to wait before trying again (429s).
const RETRY_AFTER_KEY: &str = "retry_after_secs";
/// `ErrorInfo.metadata` key holding the wait in milliseconds, for answers that state it in the
/// body (`details.tryAgainIn`).
const TRY_AGAIN_IN_KEY: &str = "try_again_in_ms";

/// One catalogue line: better-auth's `code` and `message`, and the status it answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    code: &'static str,
    message: &'static str,
    status: u16,
}

impl ErrorCode {
    pub const fn new(code: &'static str, message: &'static str, status: u16) -> Self {
        Self {
            code,
            message,
            status,
        }
    }

    pub fn code(self) -> &'static str {
        self.code
    }

    pub fn message(self) -> &'static str {
        self.message
    }

    pub fn http_status(self) -> u16 {
        self.status
    }

    /// The same code answered with another status (better-auth answers `USER_NOT_FOUND` with
    /// 400 on reset-password and 404 on admin routes).
    pub fn with_status(self, status: u16) -> Failure {
        Failure {
            status,
            ..self.into()
        }
    }

    /// The same code with a specific message (validation details).
    pub fn with_message(self, message: impl Into<Cow<'static, str>>) -> Failure {
        Failure {
            message: message.into(),
            ..self.into()
        }
    }

    /// The same code, telling the caller to wait `seconds` (the gateway sends `X-Retry-After`).
    pub fn with_retry_after(self, seconds: u64) -> Failure {
        Failure {
            retry_after_secs: Some(seconds.max(1)),
            ..self.into()
        }
    }

    /// The same code, telling the caller to wait `ms` milliseconds, in the body
    /// (`details.tryAgainIn`, as the api-key plugin answers) and in `Retry-After` (seconds,
    /// rounded up).
    pub fn with_try_again_in(self, ms: u64) -> Failure {
        Failure {
            retry_after_secs: Some(ms.div_ceil(1000).max(1)),
            try_again_in_ms: Some(ms),
            ..self.into()
        }
    }
}

/// Declares a catalogue: `NAME = (status, "message")` per line; the code is the name.
#[macro_export]
macro_rules! catalogue {
    ($( $(#[$doc:meta])* $name:ident = ($status:literal, $message:literal) ),+ $(,)?) => {
        $( $(#[$doc])* pub const $name: $crate::errors::ErrorCode =
            $crate::errors::ErrorCode::new(stringify!($name), $message, $status); )+
        /// Every code of this catalogue.
        pub const ALL: &[$crate::errors::ErrorCode] = &[$( $name ),+];
    };
}

/// A failure as it reaches the caller: code, message and HTTP status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    code: Cow<'static, str>,
    message: Cow<'static, str>,
    status: u16,
    retry_after_secs: Option<u64>,
    try_again_in_ms: Option<u64>,
}

impl From<ErrorCode> for Failure {
    fn from(code: ErrorCode) -> Self {
        Self {
            code: Cow::Borrowed(code.code),
            message: Cow::Borrowed(code.message),
            status: code.status,
            retry_after_secs: None,
            try_again_in_ms: None,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.status, self.message)
    }
}

impl std::error::Error for Failure {}

impl Failure {
    /// A refusal better-auth answers with a message and no code (`{"message": "No fields to
    /// update"}`); the gateway renders it without `code`.
    pub fn message_only(status: u16, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code: Cow::Borrowed(""),
            message: message.into(),
            status,
            retry_after_secs: None,
            try_again_in_ms: None,
        }
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn http_status(&self) -> u16 {
        self.status
    }

    /// Seconds the caller should wait before trying again, when the failure says.
    pub fn retry_after_secs(&self) -> Option<u64> {
        self.retry_after_secs
    }

    /// The wait in milliseconds, when the answer states it in its body.
    pub fn try_again_in_ms(&self) -> Option<u64> {
        self.try_again_in_ms
    }

    /// Whether this failure carries `code` (whatever its status or message).
    pub fn is(&self, code: ErrorCode) -> bool {
        self.code == code.code
    }

    /// Whether the server, not the caller, is at fault (5xx): such failures are logged.
    pub fn is_server_error(&self) -> bool {
        self.status >= 500
    }

    /// The gRPC status a service returns: the code derived from the HTTP status, the message,
    /// and `ErrorInfo{reason: code, domain: "gatehouse", metadata: {http_status}}`.
    pub fn to_status(&self) -> Status {
        let mut metadata = HashMap::from([(HTTP_STATUS_KEY.to_string(), self.status.to_string())]);
        if let Some(seconds) = self.retry_after_secs {
            metadata.insert(RETRY_AFTER_KEY.to_string(), seconds.to_string());
        }
        if let Some(ms) = self.try_again_in_ms {
            metadata.insert(TRY_AGAIN_IN_KEY.to_string(), ms.to_string());
        }
        let details = ErrorDetails::with_error_info(self.code.to_string(), DOMAIN, metadata);
        Status::with_error_details(grpc_code(self.status), self.message.to_string(), details)
    }

    /// Reads a failure back from a gRPC status. A status without our `ErrorInfo` (the peer is
    /// down, the call timed out, a proxy answered) is a 503 when the transport failed and a
    /// 500 otherwise; its text is never shown to the client. A status the client made from an
    /// error of its own carries that error as its source: the connection broke (a peer
    /// SIGKILLed mid-call arrives as `Unknown`, "transport error: broken pipe"), so it is a
    /// 503 whatever its code. A status the peer sent has no source.
    pub fn from_status(status: &Status) -> Self {
        if let Some(info) = status
            .get_details_error_info()
            .filter(|info| info.domain == DOMAIN)
        {
            let http = info
                .metadata
                .get(HTTP_STATUS_KEY)
                .and_then(|s| s.parse().ok())
                .filter(|s| (400..600).contains(s))
                .unwrap_or(500);
            let retry_after_secs = info
                .metadata
                .get(RETRY_AFTER_KEY)
                .and_then(|s| s.parse().ok());
            let try_again_in_ms = info
                .metadata
                .get(TRY_AGAIN_IN_KEY)
                .and_then(|s| s.parse().ok());
            return Failure {
                code: Cow::Owned(info.reason),
                message: Cow::Owned(status.message().to_string()),
                status: http,
                retry_after_secs,
                try_again_in_ms,
            };
        }
        let transport_failed = std::error::Error::source(status).is_some();
        match status.code() {
            Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => {
                base::SERVICE_UNAVAILABLE.into()
            }
            _ if transport_failed => base::SERVICE_UNAVAILABLE.into(),
            _ => base::INTERNAL_SERVER_ERROR.into(),
        }
    }
}

impl From<Failure> for Status {
    fn from(failure: Failure) -> Self {
        failure.to_status()
    }
}

impl From<ErrorCode> for Status {
    fn from(code: ErrorCode) -> Self {
        Failure::from(code).to_status()
    }
}

/// A failure that is the server's fault: logged (with its cause) where it becomes a gRPC
/// status, and shown to the caller only as `answer`. Every service's error enum wraps it.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct Internal {
    pub what: &'static str,
    pub answer: ErrorCode,
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl Internal {
    pub fn new(
        what: &'static str,
        answer: ErrorCode,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            what,
            answer,
            source: source.into(),
        }
    }
}

impl From<Internal> for Status {
    fn from(internal: Internal) -> Self {
        tracing::error!(error = %internal.source, "{} failed", internal.what);
        internal.answer.into()
    }
}

/// The gRPC code for an HTTP status, for gRPC callers that read only the code.
fn grpc_code(status: u16) -> Code {
    match status {
        400 | 415 => Code::InvalidArgument,
        401 => Code::Unauthenticated,
        403 => Code::PermissionDenied,
        404 => Code::NotFound,
        405 | 501 => Code::Unimplemented,
        409 => Code::AlreadyExists,
        429 => Code::ResourceExhausted,
        503 => Code::Unavailable,
        400..=499 => Code::FailedPrecondition,
        _ => Code::Internal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_travels_whole_through_a_grpc_status() {
        let all = base::ALL.iter().chain(username::ALL).chain(admin::ALL);
        let all = all.chain(organization::ALL).chain(api_key::ALL);
        let all = all.chain(billing::ALL).chain(captcha::ALL);
        for &code in all.chain(two_factor::ALL) {
            let back = Failure::from_status(&Status::from(code));
            assert_eq!(back, Failure::from(code), "{}", code.code());
        }
    }

    #[test]
    fn a_message_only_refusal_travels_without_a_code() {
        let failure = Failure::message_only(400, "No fields to update");
        let back = Failure::from_status(&failure.to_status());
        assert_eq!(back, failure);
        assert_eq!(back.code(), "");
    }

    #[test]
    fn the_raiser_may_override_status_and_message() {
        let failure = base::USER_NOT_FOUND.with_status(400);
        let back = Failure::from_status(&failure.to_status());
        assert_eq!(
            (back.code(), back.http_status(), back.message()),
            ("USER_NOT_FOUND", 400, "User not found")
        );
        let detailed = base::VALIDATION_ERROR.with_message("[body.email] Invalid email address");
        assert_eq!(
            Failure::from_status(&detailed.to_status()).message(),
            "[body.email] Invalid email address"
        );
        let wait = base::TOO_MANY_REQUESTS.with_retry_after(7);
        let back = Failure::from_status(&wait.to_status());
        assert_eq!(
            (back.http_status(), back.retry_after_secs()),
            (429, Some(7))
        );
        assert_eq!(
            Failure::from_status(&failure.to_status()).retry_after_secs(),
            None
        );
        let limited = api_key::RATE_LIMITED.with_try_again_in(1_500);
        let back = Failure::from_status(&limited.to_status());
        assert_eq!(
            (back.retry_after_secs(), back.try_again_in_ms()),
            (Some(2), Some(1_500)),
            "the wait in the body stays exact; the header's rounds up"
        );
    }

    #[test]
    fn a_code_no_catalogue_knows_still_arrives_whole() {
        let novel = ErrorCode::new("SOMETHING_NEW", "Something new happened", 409);
        let back = Failure::from_status(&Status::from(novel));
        assert_eq!(back.code(), "SOMETHING_NEW");
        assert_eq!(back.http_status(), 409);
    }

    #[test]
    fn untagged_statuses_never_leak_their_text() {
        let down = Failure::from_status(&Status::unavailable("connection refused to 10.0.0.7"));
        assert!(down.is(base::SERVICE_UNAVAILABLE));
        assert_eq!(down.http_status(), 503);
        let boom = Failure::from_status(&Status::internal("panic at store.rs:12"));
        assert!(boom.is(base::INTERNAL_SERVER_ERROR));
        assert!(!boom.message().contains("store.rs"));
    }

    #[test]
    fn codes_are_unique_and_named_after_themselves() {
        let mut seen = std::collections::HashSet::new();
        for code in base::ALL {
            assert!(seen.insert(code.code()), "duplicate {}", code.code());
            assert!(
                code.code()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_')
            );
        }
    }
}
