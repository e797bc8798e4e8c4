-- The organization service's copy of what member lists show of each member's user (id, name,
-- email, image), so a list is answered without asking identity. Kept only for users who are
-- members. Written when a member joins (from identity), then from identity's `user.updated`
-- events; version is the user's updated_at (Unix ms), and an event applies only when newer.
-- Members who joined before this table have no row until a list fetches their user once.
CREATE TABLE member_users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    image TEXT,
    version BIGINT NOT NULL
);
