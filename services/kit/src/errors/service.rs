//! The error type of a service whose failures are only ever a refusal or its own fault (the
//! organization and billing-webhook services). A service with more to say (identity's full
//! hashing queue, session's failing upstream) keeps an enum of its own with the same two arms
//! and the same conversions ([`service_error_conversions`](crate::service_error_conversions)).

use tonic::Status;

use super::{Failure, Internal};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A rule said no.
    #[error("refused: {0}")]
    Refused(Failure),
    /// Our fault, or a service we asked failed: logged with its cause.
    #[error(transparent)]
    Internal(#[from] Internal),
}

/// The conversions every service's error type shares, for an enum with a `Refused(Failure)`
/// and an `Internal(#[from] Internal)` arm: `internal(…)`, refusals from an
/// [`ErrorCode`](crate::errors::ErrorCode) or a [`Failure`], and storage failures from a
/// [`DbError`](crate::db::DbError) (internal, answered with the storage code). Each service
/// still maps its own arms to a `Status`.
#[macro_export]
macro_rules! service_error_conversions {
    ($error:ident) => {
        impl $error {
            pub fn internal(
                what: &'static str,
                answer: $crate::errors::ErrorCode,
                source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
            ) -> Self {
                $crate::errors::Internal::new(what, answer, source).into()
            }
        }

        impl From<$crate::errors::ErrorCode> for $error {
            fn from(code: $crate::errors::ErrorCode) -> Self {
                $error::Refused(code.into())
            }
        }

        impl From<$crate::errors::Failure> for $error {
            fn from(failure: $crate::errors::Failure) -> Self {
                $error::Refused(failure)
            }
        }

        impl From<$crate::db::DbError> for $error {
            fn from(error: $crate::db::DbError) -> Self {
                $error::internal("storage", error.answer(), error)
            }
        }
    };
}

crate::service_error_conversions!(ServiceError);

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        match error {
            ServiceError::Refused(failure) => failure.into(),
            ServiceError::Internal(internal) => internal.into(),
        }
    }
}
