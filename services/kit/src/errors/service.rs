//! The error type of a service whose failures are only ever a refusal or its own fault (the
//! organization and billing-webhook services). A service with more to say (identity's full
//! hashing queue, session's failing upstream) keeps an enum of its own with the same two arms.

use tonic::Status;

use super::{ErrorCode, Failure, Internal};
use crate::db::DbError;

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A rule said no.
    #[error("refused: {0}")]
    Refused(Failure),
    /// Our fault, or a service we asked failed: logged with its cause.
    #[error(transparent)]
    Internal(#[from] Internal),
}

impl ServiceError {
    pub fn internal(
        what: &'static str,
        answer: ErrorCode,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Internal::new(what, answer, source).into()
    }
}

impl From<ErrorCode> for ServiceError {
    fn from(code: ErrorCode) -> Self {
        ServiceError::Refused(code.into())
    }
}

impl From<Failure> for ServiceError {
    fn from(failure: Failure) -> Self {
        ServiceError::Refused(failure)
    }
}

impl From<DbError> for ServiceError {
    fn from(error: DbError) -> Self {
        ServiceError::internal("storage", error.answer(), error)
    }
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        match error {
            ServiceError::Refused(failure) => failure.into(),
            ServiceError::Internal(internal) => internal.into(),
        }
    }
}
