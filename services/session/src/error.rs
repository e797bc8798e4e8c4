//! The session service's one error type, mapped to what callers see in one place.

use gatehouse_kit::db::DbError;
use gatehouse_kit::errors::{ErrorCode, Failure, Internal};
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A rule said no.
    #[error("refused: {0}")]
    Refused(Failure),
    /// The identity service failed; its failure is passed on as it came.
    #[error("identity service: {0}")]
    Upstream(Failure),
    /// Our fault: logged with its cause, answered with its code only.
    #[error(transparent)]
    Internal(#[from] Internal),
}

impl SessionError {
    pub fn internal(
        what: &'static str,
        answer: ErrorCode,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Internal::new(what, answer, source).into()
    }
}

impl From<ErrorCode> for SessionError {
    fn from(code: ErrorCode) -> Self {
        SessionError::Refused(code.into())
    }
}

impl From<DbError> for SessionError {
    fn from(error: DbError) -> Self {
        SessionError::internal("storage", error.answer(), error)
    }
}

impl From<SessionError> for Status {
    fn from(error: SessionError) -> Self {
        match error {
            SessionError::Refused(failure) => failure.into(),
            SessionError::Upstream(failure) => {
                tracing::warn!(%failure, "identity service lookup failed");
                failure.into()
            }
            SessionError::Internal(internal) => internal.into(),
        }
    }
}
