-- Every webhook the payments platform delivered and we verified, stored before the sender
-- heard 2xx (billing-webhooks reference §2.3). The body is kept byte for byte: it is what was
-- signed, and what sellers' endpoints receive. The sender repeats `webhook-id` on every retry
-- and redelivery, so it is the idempotency key: a second delivery stores nothing.
CREATE TABLE received_events (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL UNIQUE,
    -- The envelope's `type`, `timestamp` and `api_version` as sent; an envelope that
    -- cannot be read is still kept (with an empty type), never refused.
    event_type TEXT NOT NULL,
    event_timestamp TIMESTAMPTZ,
    api_version TEXT,
    body BYTEA NOT NULL,
    received_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX received_events_received_at ON received_events (received_at);
CREATE INDEX received_events_type ON received_events (event_type, received_at);
