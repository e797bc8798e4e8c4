-- The SHA-256 (hex) of the random token in an invitation's mailed link: the link proves its
-- address's mailbox, so an unverified recipient who opens it may accept. Only the hash is
-- kept; a resend mails a new token and replaces it. NULL for invitations mailed before.
ALTER TABLE invitations ADD COLUMN token_hash TEXT;
