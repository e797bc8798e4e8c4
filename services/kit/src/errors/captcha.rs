//! The captcha plugin's catalogue (better-auth 1.7.7, `EXTERNAL_ERROR_CODES`): the gateway
//! answers these before a guarded route runs.

crate::catalogue! {
    MISSING_RESPONSE = (400, "Missing CAPTCHA response"),
    VERIFICATION_FAILED = (403, "Captcha verification failed"),
    /// The provider could not be reached in time, or answered nonsense: fail closed.
    UNKNOWN_ERROR = (500, "Something went wrong"),
}
