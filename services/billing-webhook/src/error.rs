//! The billing-webhook service's one error type: a refusal with its catalogued code, or an
//! internal failure logged with its cause and answered with its code only (kit's
//! `ServiceError`, shared with the other services that need no more than that).

pub use gatehouse_kit::errors::ServiceError as BillingError;
