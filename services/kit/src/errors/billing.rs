//! The billing webhooks' catalogue. The intake's refusals carry the Standard Webhooks reference
//! libraries' own messages, verbatim (billing-webhooks reference §1.2), and answer 403 as the
//! payments platform's documentation answers a failed verification; the sender retries any
//! non-2xx, so none of them loses an event that was really sent.

crate::catalogue! {
    MISSING_REQUIRED_HEADERS = (403, "Missing required headers"),
    INVALID_SIGNATURE_HEADERS = (403, "Invalid Signature Headers"),
    MESSAGE_TIMESTAMP_TOO_OLD = (403, "Message timestamp too old"),
    MESSAGE_TIMESTAMP_TOO_NEW = (403, "Message timestamp too new"),
    NO_MATCHING_SIGNATURE_FOUND = (403, "No matching signature found"),
    BILLING_WEBHOOKS_NOT_CONFIGURED = (503, "Billing webhooks are not configured: POLAR_WEBHOOK_SECRET is not set"),
    WEBHOOK_BODY_TOO_LARGE = (413, "Webhook body too large"),
    FAILED_TO_STORE_WEBHOOK = (500, "Failed to store the webhook"),
    // Sellers' endpoints (the fan-out). An endpoint of another organization is not found.
    ENDPOINT_NOT_FOUND = (404, "Endpoint not found"),
    INVALID_ENDPOINT_URL = (400, "Endpoint URL must be an absolute http or https URL"),
    ENDPOINT_URL_NOT_ALLOWED = (400, "Endpoint URL points to a private, loopback or link-local address"),
    INVALID_EVENT_TYPE = (400, "Invalid event type"),
    TOO_MANY_ENDPOINTS = (400, "The organization has reached its endpoint limit"),
    EVENT_NOT_FOUND = (404, "Event not found"),
    INVALID_REPLAY_RANGE = (400, "Invalid replay range"),
    ENDPOINT_DISABLED = (400, "The endpoint is disabled"),
    INVALID_DELIVERY_STATUS = (400, "Delivery status must be pending, delivered, failed or skipped"),
    // The gateway's check before any of the above: `organization:update` in the organization.
    YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING = (403, "You are not allowed to manage this organization's billing"),
}
