-- The mail flows (better-auth's verification table, §4.4): one row per link mailed, for email
-- verification, password reset, change of email and account deletion. Only a SHA-256 of the
-- token is stored, so reading the table never yields a working link. A link lives until
-- expires_at; a password-reset or deletion link is deleted when used.
CREATE TABLE verifications (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    purpose TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The address the link was mailed for; a change of email's new address.
    email TEXT NOT NULL,
    new_email TEXT,
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX verifications_user ON verifications (user_id, purpose);
CREATE INDEX verifications_expires_at ON verifications (expires_at);

-- The language the user's mails are written in: the platform's code (ENG 3 by default).
ALTER TABLE users ADD COLUMN language INTEGER NOT NULL DEFAULT 3;
