//! The two-factor plugin's catalogue (better-auth 1.7.7, `TWO_FACTOR_ERROR_CODES`), with the
//! statuses its routes answer them with.

crate::catalogue! {
    OTP_NOT_ENABLED = (400, "OTP not enabled"),
    OTP_NOT_CONFIGURED = (400, "OTP is not available"),
    OTP_HAS_EXPIRED = (400, "OTP has expired"),
    TOTP_NOT_ENABLED = (400, "TOTP not enabled"),
    TOTP_ALREADY_ENABLED = (400, "TOTP is already enabled"),
    TOTP_NOT_CONFIGURED = (400, "TOTP is not available"),
    TWO_FACTOR_NOT_ENABLED = (400, "Two factor isn't enabled"),
    BACKUP_CODES_NOT_ENABLED = (400, "Backup codes aren't enabled"),
    INVALID_BACKUP_CODE = (401, "Invalid backup code"),
    INVALID_CODE = (401, "Invalid code"),
    TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE = (400, "Too many attempts. Please request a new code."),
    /// Per account, whatever challenge the guesses come through (with `X-Retry-After`).
    ACCOUNT_TEMPORARILY_LOCKED = (
        429,
        "Too many failed verification attempts. Your account is temporarily locked. Please try again later."
    ),
    INVALID_TWO_FACTOR_COOKIE = (401, "Invalid two factor cookie"),
}
