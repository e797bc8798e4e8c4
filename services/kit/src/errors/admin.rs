//! The admin plugin's catalogue (`ADMIN_ERROR_CODES`, protocol reference §10.8). Refusals of
//! a permission answer 403; `BANNED_USER` is sent with the configured banned-user message.
//! The `YOU_CANNOT_…_ADMINS` codes after better-auth's are Gatehouse's own: better-auth guards
//! only impersonation of an admin, Gatehouse every admin action on another admin (README).

crate::catalogue! {
    FAILED_TO_CREATE_USER = (500, "Failed to create user"),
    USER_ALREADY_EXISTS = (400, "User already exists."),
    USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL = (400, "User already exists. Use another email."),
    YOU_CANNOT_BAN_YOURSELF = (400, "You cannot ban yourself"),
    YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE = (403, "You are not allowed to change users role"),
    YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS = (403, "You are not allowed to create users"),
    YOU_ARE_NOT_ALLOWED_TO_LIST_USERS = (403, "You are not allowed to list users"),
    YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS = (403, "You are not allowed to list users sessions"),
    YOU_ARE_NOT_ALLOWED_TO_BAN_USERS = (403, "You are not allowed to ban users"),
    YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS = (403, "You are not allowed to impersonate users"),
    YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS = (403, "You are not allowed to revoke users sessions"),
    YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS = (403, "You are not allowed to delete users"),
    YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD = (403, "You are not allowed to set users password"),
    BANNED_USER = (403, "You have been banned from this application"),
    YOU_ARE_NOT_ALLOWED_TO_GET_USER = (403, "You are not allowed to get user"),
    NO_DATA_TO_UPDATE = (400, "No data to update"),
    YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS = (403, "You are not allowed to update users"),
    YOU_CANNOT_REMOVE_YOURSELF = (400, "You cannot remove yourself"),
    YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE = (400, "You are not allowed to set a non-existent role value"),
    YOU_CANNOT_IMPERSONATE_ADMINS = (403, "You cannot impersonate admins"),
    INVALID_ROLE_TYPE = (400, "Invalid role type"),
    YOU_ARE_NOT_ALLOWED_TO_SET_USERS_EMAIL = (403, "You are not allowed to update users email"),
    PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER = (400, "Password cannot be updated through update-user. Use the set-user-password endpoint instead"),
    USER_ID_CANNOT_BE_UPDATED = (400, "User id cannot be updated"),
    // Gatehouse's own: only a super-admin (`ADMIN_USER_IDS`) acts on another admin.
    YOU_CANNOT_CHANGE_ADMINS_ROLE = (403, "You cannot change the role of an admin"),
    YOU_CANNOT_UPDATE_ADMINS = (403, "You cannot update an admin"),
    YOU_CANNOT_BAN_ADMINS = (403, "You cannot ban or unban an admin"),
    YOU_CANNOT_REMOVE_ADMINS = (403, "You cannot remove an admin"),
    YOU_CANNOT_SET_ADMINS_PASSWORD = (403, "You cannot set the password of an admin"),
    /// Gatehouse's own: the two-factor reset (`user:reset-two-factor`).
    YOU_ARE_NOT_ALLOWED_TO_RESET_USERS_TWO_FACTOR = (
        403,
        "You are not allowed to reset users two-factor authentication"
    ),
    YOU_CANNOT_RESET_ADMINS_TWO_FACTOR = (
        403,
        "You cannot reset the two-factor authentication of an admin"
    ),
    YOU_CANNOT_REVOKE_ADMINS_SESSIONS = (403, "You cannot revoke the sessions of an admin"),
}
