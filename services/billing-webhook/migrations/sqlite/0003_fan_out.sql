-- Sellers' endpoints and what was sent to them (billing-webhooks reference §5, §7).
--
-- An endpoint belongs to an organization; its owners and admins manage it. `secret` is the
-- Standard Webhooks secret (`whsec_` + base64 of 24 random bytes); with `polar_signing` the
-- HMAC key is the UTF-8 text of the whole secret instead, as the payments platform's own
-- webhooks are signed, for receivers on its older SDK. After a rotation the previous secret
-- also signs until `previous_secret_expires_at`. `event_types` lists the types it takes,
-- space-separated; empty takes every type. `failing_since` is when its deliveries began to
-- fail without a success since; an endpoint failing for days is disabled.
CREATE TABLE endpoints (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    url TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    event_types TEXT NOT NULL DEFAULT '',
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    polar_signing BOOLEAN NOT NULL DEFAULT FALSE,
    previous_secret TEXT,
    previous_secret_expires_at TEXT,
    failing_since TEXT,
    -- Who registered it: told by mail when it is disabled.
    created_by_email TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX endpoints_organization ON endpoints (organization_id, created_at);

-- One stored event for one endpoint. `id` is the `webhook-id` the endpoint receives: the same
-- on every attempt and replay, different per endpoint. status: pending (attempts to come),
-- delivered, failed (every scheduled attempt failed), skipped (the endpoint was disabled).
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES received_events (id),
    endpoint_id TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_attempt_at TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX deliveries_endpoint ON deliveries (endpoint_id, created_at);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);

-- Every HTTP attempt: trigger is `scheduled` (the retry schedule) or `manual` (a replay or a
-- test event). The response body is kept up to 2,048 characters.
CREATE TABLE delivery_attempts (
    id TEXT PRIMARY KEY,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL,
    trigger TEXT NOT NULL,
    started_at TEXT NOT NULL,
    duration_ms BIGINT NOT NULL,
    response_status INTEGER,
    response_body TEXT,
    error TEXT,
    succeeded BOOLEAN NOT NULL
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, started_at);
CREATE INDEX delivery_attempts_endpoint ON delivery_attempts (endpoint_id, started_at);
