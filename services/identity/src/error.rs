//! The identity service's one error type, mapped to what callers see in one place. Refusals
//! carry their catalogued code; internal failures are logged here with their cause and reach
//! the caller only as their code.

use gatehouse_kit::errors::{Failure, Internal, base};
use tonic::Status;

use crate::password::HashError;

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// A rule said no (wrong password, taken email, …).
    #[error("refused: {0}")]
    Refused(Failure),
    /// The hashing queue is full: answer at once rather than wait past the caller's timeout.
    #[error("the password hashing queue is full")]
    Busy,
    /// Our fault: logged with its cause, answered with its code only.
    #[error(transparent)]
    Internal(#[from] Internal),
}

gatehouse_kit::service_error_conversions!(IdentityError);

impl From<HashError> for IdentityError {
    fn from(error: HashError) -> Self {
        match error {
            HashError::Busy => IdentityError::Busy,
            HashError::OverBudget { retry_after } => {
                metrics::counter!("sign_in_refused_total", "why" => "budget").increment(1);
                IdentityError::Refused(
                    base::TOO_MANY_REQUESTS
                        .with_retry_after(retry_after.as_secs_f64().ceil() as u64),
                )
            }
            error => {
                IdentityError::internal("password hashing", base::INTERNAL_SERVER_ERROR, error)
            }
        }
    }
}

impl From<IdentityError> for Status {
    fn from(error: IdentityError) -> Self {
        match error {
            IdentityError::Refused(failure) => failure.into(),
            IdentityError::Busy => {
                metrics::counter!("sign_in_shed_total").increment(1);
                base::SERVICE_UNAVAILABLE.into()
            }
            IdentityError::Internal(internal) => internal.into(),
        }
    }
}
