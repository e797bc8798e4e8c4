-- admin list-users searches email and name by substring (`contains`, also `starts_with` and
-- `ends_with`), ignoring case. A leading `%` uses no B-tree, so without this every search
-- reads the whole table. An FTS5 table with the trigram tokenizer (case-insensitive) answers
-- LIKE patterns of 3+ characters from its index; the list narrows users to its candidates by
-- id and still applies its own LIKE, so results are exactly the plain scan's.
--
-- It keeps its own copy of the two columns with the user's id, rather than pointing at the
-- users table's rowid: VACUUM may renumber the rowids of a table whose key is not an INTEGER
-- PRIMARY KEY, which would silently detach an external-content index.
CREATE VIRTUAL TABLE users_search USING fts5(id UNINDEXED, email, name, tokenize = 'trigram');

INSERT INTO users_search (id, email, name) SELECT id, email, name FROM users;

CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_search (id, email, name) VALUES (new.id, new.email, new.name);
END;

-- Finding the row by the unindexed id reads the FTS table; changes of email or name and
-- deletions are rare next to searches.
CREATE TRIGGER users_search_update AFTER UPDATE OF email, name ON users
WHEN old.email IS NOT new.email OR old.name IS NOT new.name BEGIN
    UPDATE users_search SET email = new.email, name = new.name WHERE id = old.id;
END;

CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
    DELETE FROM users_search WHERE id = old.id;
END;
