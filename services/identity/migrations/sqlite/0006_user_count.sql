-- How many users there are, kept by triggers (see the PostgreSQL migration: every list-users
-- page shows the total, and COUNT(*) visits every row). SQLite has no TRUNCATE.
CREATE TABLE user_count (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    users BIGINT NOT NULL
);

INSERT INTO user_count (singleton, users) SELECT TRUE, COUNT(*) FROM users;

CREATE TRIGGER user_count_insert AFTER INSERT ON users BEGIN
    UPDATE user_count SET users = users + 1;
END;

CREATE TRIGGER user_count_delete AFTER DELETE ON users BEGIN
    UPDATE user_count SET users = users - 1;
END;
