-- A provider account's tokens (better-auth's account columns), each encrypted at rest with a
-- key from the auth secret (`$gh$<version>$…`; values imported from better-auth read as they
-- are). `scope` is comma-separated, as better-auth stores it.
ALTER TABLE accounts ADD COLUMN access_token TEXT;
ALTER TABLE accounts ADD COLUMN refresh_token TEXT;
ALTER TABLE accounts ADD COLUMN id_token TEXT;
ALTER TABLE accounts ADD COLUMN access_token_expires_at TEXT;
ALTER TABLE accounts ADD COLUMN refresh_token_expires_at TEXT;
ALTER TABLE accounts ADD COLUMN scope TEXT;
-- One refresh at a time per account, across replicas: whoever sets this refreshes; the
-- others wait for the tokens it writes.
ALTER TABLE accounts ADD COLUMN refreshing_until TEXT;
