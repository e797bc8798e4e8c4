-- API keys (better-auth's `apikey` table). Only the key's SHA-256 is kept (base64url, no
-- padding: better-auth's encoding, so its keys work after an import). Times of a key's use
-- are recorded coarsely: its rate window counts in the cache, not here.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    config_id TEXT NOT NULL DEFAULT 'default',
    name TEXT,
    start TEXT,
    -- The owner: a user's id, or an organization's (owner_kind 'organization').
    reference_id TEXT NOT NULL,
    owner_kind TEXT NOT NULL DEFAULT 'user',
    prefix TEXT,
    key_hash TEXT NOT NULL UNIQUE,
    -- Milliseconds, as better-auth stores them.
    refill_interval BIGINT,
    refill_amount BIGINT,
    last_refill_at TEXT,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    rate_limit_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    rate_limit_time_window BIGINT,
    rate_limit_max BIGINT,
    request_count BIGINT NOT NULL DEFAULT 0,
    remaining BIGINT,
    last_request TEXT,
    expires_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    -- JSON: {"resource": ["action"]}.
    permissions TEXT,
    -- JSON, as the owner gave it.
    metadata TEXT
);
CREATE INDEX api_keys_reference_id ON api_keys (reference_id);
CREATE INDEX api_keys_expires_at ON api_keys (expires_at);
