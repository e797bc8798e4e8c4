-- The username plugin's and the admin plugin's user fields (better-auth §9.1, §10.1).
-- username is stored normalised (lower-cased), so its unique index makes it unique ignoring
-- case; display_username keeps the form the user typed. role may list several, comma-separated.
ALTER TABLE users ADD COLUMN username TEXT;
ALTER TABLE users ADD COLUMN display_username TEXT;
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user';
ALTER TABLE users ADD COLUMN banned BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN ban_reason TEXT;
ALTER TABLE users ADD COLUMN ban_expires TEXT;
CREATE UNIQUE INDEX users_username ON users (username);
-- The admin list's default order (oldest first), one page at a time.
CREATE INDEX users_created_at ON users (created_at, id);
