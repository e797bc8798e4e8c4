//! The session service's one error type, mapped to what callers see in one place.

use gatehouse_kit::errors::{Failure, Internal};
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

gatehouse_kit::service_error_conversions!(SessionError);

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
