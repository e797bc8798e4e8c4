-- The two-factor plugin (better-auth's `twoFactor` table and `user.twoFactorEnabled`).
ALTER TABLE users ADD COLUMN two_factor_enabled BOOLEAN NOT NULL DEFAULT FALSE;

-- A user's authenticator secret and backup codes, both encrypted with keys derived from the
-- auth secret (kit's Vault). `verified` turns true with the first code proved: until then the
-- secret is only being set up. `last_totp_step` is the 30-second step of the newest code
-- accepted: a code of that step or an older one is never accepted again (no replay).
CREATE TABLE two_factors (
    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret TEXT NOT NULL,
    backup_codes TEXT NOT NULL,
    verified BOOLEAN NOT NULL DEFAULT FALSE,
    last_totp_step BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- Sign-ins waiting for their second factor (better-auth's `2fa-<id>` verification values).
-- The id is in the browser's signed cookie; only its SHA-256 is kept here.
CREATE TABLE two_factor_challenges (
    id_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Whether the session to come outlives the browser (sign-in's rememberMe).
    remember BOOLEAN NOT NULL,
    -- Wrong codes so far: at the limit the challenge is used up.
    attempts INTEGER NOT NULL DEFAULT 0,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX two_factor_challenges_expires_at ON two_factor_challenges (expires_at);
CREATE INDEX two_factor_challenges_user_id ON two_factor_challenges (user_id);

-- Codes mailed for a second factor, one per challenge or per session (`target`), with the
-- wrong guesses made against it.
CREATE TABLE two_factor_codes (
    target TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Encrypted (Vault), bound to its target.
    code TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX two_factor_codes_expires_at ON two_factor_codes (expires_at);
CREATE INDEX two_factor_codes_user_id ON two_factor_codes (user_id);

-- Browsers that proved a second factor and asked to be trusted (better-auth's
-- `trust-device-<id>` values): their sign-ins skip the second factor until expiry. Only the
-- identifier's SHA-256 is kept; a sign-out everywhere or a new password forgets them all
-- (and the user's pending challenges and mailed codes with them).
CREATE TABLE trusted_devices (
    id_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX trusted_devices_user_id ON trusted_devices (user_id);
CREATE INDEX trusted_devices_expires_at ON trusted_devices (expires_at);
