-- Every invitation mail queued (a new invitation or a resend), counted per address and per
-- organization over a sliding window for the sending limits (INVITATION_MAILS_PER_*). No
-- foreign key: an organization deleted and made again does not start its addresses afresh.
-- A send prunes its address's rows that have left the window.
CREATE TABLE invitation_mails (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    email TEXT NOT NULL,
    sent_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX invitation_mails_email ON invitation_mails (email, sent_at);
CREATE INDEX invitation_mails_organization ON invitation_mails (organization_id, sent_at);

-- One row per address ever invited: a send locks its address's row (an upsert), so two sends
-- to one address from different organizations are counted one after the other.
CREATE TABLE invitation_mail_recipients (
    email TEXT PRIMARY KEY,
    last_mail_at TIMESTAMPTZ NOT NULL
);
