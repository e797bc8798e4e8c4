-- kit's transactional outbox: every service writes its events here in the transaction that
-- causes them; a relay claims due rows for a short lease, publishes them and marks them
-- published. A row the broker keeps refusing is retried with a growing delay, then parked.
CREATE TABLE outbox (
    id TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    -- the protobuf-encoded event (gatehouse.events.v1)
    payload BLOB NOT NULL,
    -- trace context, JSON
    headers TEXT NOT NULL,
    created_at TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    last_error TEXT,
    claimed_until TEXT,
    parked_at TEXT,
    published_at TEXT
);
CREATE INDEX outbox_due ON outbox (created_at) WHERE published_at IS NULL AND parked_at IS NULL;
