//! The organization service's one error type, mapped to what callers see in one place.
//! Refusals carry their catalogued code; internal failures are logged with their cause and
//! reach the caller only as their code.

use gatehouse_kit::db::DbError;
use gatehouse_kit::errors::{ErrorCode, Failure, Internal, base};
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum OrganizationError {
    /// A rule said no.
    #[error("refused: {0}")]
    Refused(Failure),
    /// Our fault, or a service we asked failed: logged with its cause.
    #[error(transparent)]
    Internal(#[from] Internal),
}

impl OrganizationError {
    pub fn internal(
        what: &'static str,
        answer: ErrorCode,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Internal::new(what, answer, source).into()
    }
}

impl From<ErrorCode> for OrganizationError {
    fn from(code: ErrorCode) -> Self {
        OrganizationError::Refused(code.into())
    }
}

impl From<Failure> for OrganizationError {
    fn from(failure: Failure) -> Self {
        OrganizationError::Refused(failure)
    }
}

impl From<DbError> for OrganizationError {
    fn from(error: DbError) -> Self {
        OrganizationError::internal("storage", base::INTERNAL_SERVER_ERROR, error)
    }
}

impl From<OrganizationError> for Status {
    fn from(error: OrganizationError) -> Self {
        match error {
            OrganizationError::Refused(failure) => failure.into(),
            OrganizationError::Internal(internal) => internal.into(),
        }
    }
}
