//! The api-key plugin's catalogue (`API_KEY_ERROR_CODES`, `@better-auth/api-key` 1.7.5). The
//! rate limit's refusal is `RATE_LIMITED` (its code on the wire), not the catalogue's
//! `RATE_LIMIT_EXCEEDED`, and carries `details.tryAgainIn`.

crate::catalogue! {
    INVALID_METADATA_TYPE = (400, "metadata must be an object or undefined"),
    REFILL_AMOUNT_AND_INTERVAL_REQUIRED = (400, "refillAmount is required when refillInterval is provided"),
    REFILL_INTERVAL_AND_AMOUNT_REQUIRED = (400, "refillInterval is required when refillAmount is provided"),
    USER_BANNED = (401, "User is banned"),
    UNAUTHORIZED_SESSION = (401, "Unauthorized or invalid session"),
    KEY_NOT_FOUND = (404, "API Key not found"),
    KEY_DISABLED = (401, "API Key is disabled"),
    KEY_EXPIRED = (401, "API Key has expired"),
    USAGE_EXCEEDED = (429, "API Key has reached its usage limit"),
    EXPIRES_IN_IS_TOO_SMALL = (400, "The expiresIn is smaller than the predefined minimum value."),
    EXPIRES_IN_IS_TOO_LARGE = (400, "The expiresIn is larger than the predefined maximum value."),
    INVALID_REMAINING = (400, "The remaining count is either too large or too small."),
    INVALID_PREFIX_LENGTH = (400, "The prefix length is either too large or too small."),
    INVALID_NAME_LENGTH = (400, "The name length is either too large or too small."),
    METADATA_DISABLED = (400, "Metadata is disabled."),
    RATE_LIMITED = (429, "Rate limit exceeded."),
    NO_VALUES_TO_UPDATE = (400, "No values to update."),
    INVALID_API_KEY = (401, "Invalid API key."),
    INVALID_REFERENCE_ID_FROM_API_KEY = (401, "The reference id from the API key is invalid."),
    SERVER_ONLY_PROPERTY = (400, "The property you're trying to set can only be set from the server auth instance only."),
    FAILED_TO_UPDATE_API_KEY = (500, "Failed to update API key"),
    NAME_REQUIRED = (400, "API Key name is required."),
    ORGANIZATION_ID_REQUIRED = (400, "Organization ID is required for organization-owned API keys."),
    USER_NOT_MEMBER_OF_ORGANIZATION = (403, "You are not a member of the organization that owns this API key."),
    INSUFFICIENT_API_KEY_PERMISSIONS = (403, "You do not have permission to perform this action on organization API keys."),
}
