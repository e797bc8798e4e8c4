//! The billing-webhook service's one error type, mapped to what callers see in one place.
//! Refusals carry their catalogued code; internal failures are logged with their cause and
//! reach the caller only as their code.

use gatehouse_kit::db::DbError;
use gatehouse_kit::errors::{ErrorCode, Failure, Internal, base};
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum BillingError {
    /// A rule said no.
    #[error("refused: {0}")]
    Refused(Failure),
    /// Our fault, or a service we asked failed: logged with its cause.
    #[error(transparent)]
    Internal(#[from] Internal),
}

impl BillingError {
    pub fn internal(
        what: &'static str,
        answer: ErrorCode,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Internal::new(what, answer, source).into()
    }
}

impl From<ErrorCode> for BillingError {
    fn from(code: ErrorCode) -> Self {
        BillingError::Refused(code.into())
    }
}

impl From<Failure> for BillingError {
    fn from(failure: Failure) -> Self {
        BillingError::Refused(failure)
    }
}

impl From<DbError> for BillingError {
    fn from(error: DbError) -> Self {
        BillingError::internal("storage", base::INTERNAL_SERVER_ERROR, error)
    }
}

impl From<BillingError> for Status {
    fn from(error: BillingError) -> Self {
        match error {
            BillingError::Refused(failure) => failure.into(),
            BillingError::Internal(internal) => internal.into(),
        }
    }
}
