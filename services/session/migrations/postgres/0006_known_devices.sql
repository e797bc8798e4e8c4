-- The devices (a browser on a system, as the User-Agent names them) each user has signed in
-- from. A sign-in from one not listed, by a user with others listed, announces
-- `session.new-device` (identity mails the user). A deleted user's go with them.
CREATE TABLE known_devices (
    user_id TEXT NOT NULL,
    device TEXT NOT NULL,
    first_seen_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, device)
);
