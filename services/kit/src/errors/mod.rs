//! The one error catalogue. Each code carries better-auth's machine code and message, the HTTP
//! status the gateway answers with, and the gRPC code a service returns. The machine code
//! travels in the gRPC status metadata, so the gateway maps it back without guessing.

use tonic::{Code, Status, metadata::MetadataValue};

/// gRPC metadata key carrying the machine code of a failed call.
pub const CODE_METADATA_KEY: &str = "gatehouse-code";

macro_rules! catalogue {
    ($( $variant:ident => ($code:literal, $message:literal, $http:literal, $grpc:ident) ),+ $(,)?) => {
        /// A failure every layer agrees on. `code()`/`message()` are better-auth's.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode { $( $variant ),+ }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$( ErrorCode::$variant ),+];

            pub fn code(self) -> &'static str {
                match self { $( ErrorCode::$variant => $code ),+ }
            }
            pub fn message(self) -> &'static str {
                match self { $( ErrorCode::$variant => $message ),+ }
            }
            pub fn http_status(self) -> u16 {
                match self { $( ErrorCode::$variant => $http ),+ }
            }
            pub fn grpc_code(self) -> Code {
                match self { $( ErrorCode::$variant => Code::$grpc ),+ }
            }
            pub fn from_code(code: &str) -> Option<Self> {
                match code { $( $code => Some(ErrorCode::$variant), )+ _ => None }
            }
        }
    };
}

catalogue! {
    UserNotFound => ("USER_NOT_FOUND", "User not found", 404, NotFound),
    FailedToCreateUser => ("FAILED_TO_CREATE_USER", "Failed to create user", 422, Internal),
    FailedToCreateSession => ("FAILED_TO_CREATE_SESSION", "Failed to create session", 401, Internal),
    FailedToGetSession => ("FAILED_TO_GET_SESSION", "Failed to get session", 500, Internal),
    InvalidPassword => ("INVALID_PASSWORD", "Invalid password", 400, InvalidArgument),
    InvalidEmail => ("INVALID_EMAIL", "Invalid email", 400, InvalidArgument),
    InvalidEmailOrPassword => ("INVALID_EMAIL_OR_PASSWORD", "Invalid email or password", 401, Unauthenticated),
    PasswordTooShort => ("PASSWORD_TOO_SHORT", "Password too short", 400, InvalidArgument),
    PasswordTooLong => ("PASSWORD_TOO_LONG", "Password too long", 400, InvalidArgument),
    UserAlreadyExistsUseAnotherEmail => ("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "User already exists. Use another email.", 422, AlreadyExists),
    CrossSiteNavigationLoginBlocked => ("CROSS_SITE_NAVIGATION_LOGIN_BLOCKED", "Cross-site navigation login blocked. This request appears to be a CSRF attack.", 403, PermissionDenied),
    InvalidOrigin => ("INVALID_ORIGIN", "Invalid origin", 403, PermissionDenied),
    MissingOrNullOrigin => ("MISSING_OR_NULL_ORIGIN", "Missing or null Origin", 403, PermissionDenied),
    InvalidCallbackUrl => ("INVALID_CALLBACK_URL", "Invalid callbackURL", 403, PermissionDenied),
    InvalidRedirectUrl => ("INVALID_REDIRECT_URL", "Invalid redirectURL", 403, PermissionDenied),
    InvalidErrorCallbackUrl => ("INVALID_ERROR_CALLBACK_URL", "Invalid errorCallbackURL", 403, PermissionDenied),
    InvalidNewUserCallbackUrl => ("INVALID_NEW_USER_CALLBACK_URL", "Invalid newUserCallbackURL", 403, PermissionDenied),
    ValidationError => ("VALIDATION_ERROR", "Validation Error", 400, InvalidArgument),
    MethodNotAllowedDeferSessionRequired => ("METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED", "POST method requires deferSessionRefresh to be enabled in session config", 405, Unimplemented),
    Unauthorized => ("UNAUTHORIZED", "Unauthorized", 401, Unauthenticated),
    BadRequest => ("BAD_REQUEST", "Bad request", 400, InvalidArgument),
    UnsupportedMediaType => ("UNSUPPORTED_MEDIA_TYPE", "Unsupported media type", 415, InvalidArgument),
    TooManyRequests => ("TOO_MANY_REQUESTS", "Too many requests. Please try again later.", 429, ResourceExhausted),
    InternalServerError => ("INTERNAL_SERVER_ERROR", "Internal server error", 500, Internal),
    ServiceUnavailable => ("SERVICE_UNAVAILABLE", "A backend service is unavailable. Please try again shortly.", 503, Unavailable),
}

impl ErrorCode {
    /// The gRPC status a service returns, with the machine code in its metadata.
    pub fn status(self) -> Status {
        self.status_with_message(self.message())
    }

    pub fn status_with_message(self, message: impl Into<String>) -> Status {
        let mut status = Status::new(self.grpc_code(), message);
        status
            .metadata_mut()
            .insert(CODE_METADATA_KEY, MetadataValue::from_static(self.code()));
        status
    }

    /// Reads the machine code back from a status. A status without one (the peer is down, the
    /// call timed out) is a 503 when the transport failed and a 500 otherwise.
    pub fn from_status(status: &Status) -> Self {
        let tagged = status
            .metadata()
            .get(CODE_METADATA_KEY)
            .and_then(|v| v.to_str().ok())
            .and_then(Self::from_code);
        match tagged {
            Some(code) => code,
            None => match status.code() {
                Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => {
                    ErrorCode::ServiceUnavailable
                }
                _ => ErrorCode::InternalServerError,
            },
        }
    }
}

impl From<ErrorCode> for Status {
    fn from(code: ErrorCode) -> Self {
        code.status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_a_grpc_status() {
        for &code in ErrorCode::ALL {
            let status = code.status();
            assert_eq!(ErrorCode::from_status(&status), code);
            assert_eq!(ErrorCode::from_code(code.code()), Some(code));
        }
    }

    #[test]
    fn untagged_transport_failures_become_503() {
        let down = Status::unavailable("connection refused");
        assert_eq!(ErrorCode::from_status(&down), ErrorCode::ServiceUnavailable);
        assert_eq!(
            ErrorCode::from_status(&Status::internal("boom")).http_status(),
            500
        );
    }
}
