-- Social sign-ins under way (better-auth's `auth-state:<state>` verification values): one row
-- per redirect to a provider, used up by its callback, alive 10 minutes. The state itself is
-- in the browser's signed cookie and the provider's redirect; only its SHA-256 is kept here.
CREATE TABLE social_states (
    state_hash TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL,
    -- JSON: where to go afterwards, the PKCE verifier, the nonce, what was asked for.
    data TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX social_states_expires_at ON social_states (expires_at);
