-- The mail log: one row per mail the mailer was asked to send (its id is the mail.requested
-- event's), written in the recipient's language when the request arrives, then sent by the
-- delivery loop: queued → sent, or failed (refused for good or out of time), with every
-- attempt counted and the last error kept. Bodies carry their links' tokens: the table is
-- read only by the mailbox service.
CREATE TABLE mails (
    id TEXT PRIMARY KEY,
    recipient TEXT NOT NULL,
    kind TEXT NOT NULL,
    language INTEGER NOT NULL,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    -- queued | sent | failed
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    claimed_until TEXT,
    sent_at TEXT
);
CREATE INDEX mails_due ON mails (next_attempt_at) WHERE status = 'queued';
CREATE INDEX mails_created_at ON mails (created_at);
