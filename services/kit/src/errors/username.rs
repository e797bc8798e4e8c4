//! The username plugin's catalogue (`USERNAME_ERROR_CODES`, protocol reference §9.6). The
//! validation codes answer 422 on the plugin's own routes (sign-in/username,
//! is-username-available) and 400 where sign-up and update-user raise them.

crate::catalogue! {
    INVALID_USERNAME_OR_PASSWORD = (401, "Invalid username or password"),
    EMAIL_NOT_VERIFIED = (403, "Email not verified"),
    UNEXPECTED_ERROR = (500, "Unexpected error"),
    USERNAME_IS_ALREADY_TAKEN = (400, "Username is already taken. Please try another."),
    USERNAME_TOO_SHORT = (422, "Username is too short"),
    USERNAME_TOO_LONG = (422, "Username is too long"),
    INVALID_USERNAME = (422, "Username is invalid"),
    INVALID_DISPLAY_USERNAME = (400, "Display username is invalid"),
    USERNAME_IS_IMMUTABLE = (400, "Username cannot be updated"),
}
