-- admin list-users searches email and name by substring (`contains`, also `starts_with` and
-- `ends_with`), ignoring case. A leading `%` uses no B-tree, so without these every search
-- reads the whole table. pg_trgm's GIN indexes answer LIKE patterns of 3+ characters from
-- trigrams. pg_trgm is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
-- email is stored lower-cased; name is matched through lower() (kit's listing::condition).
CREATE INDEX users_email_trgm ON users USING gin (email gin_trgm_ops);
CREATE INDEX users_name_trgm ON users USING gin (lower(name) gin_trgm_ops);
