-- better-auth's organization plugin tables (protocol reference §11.2). user_id, inviter_id:
-- the identity service's user ids; no foreign key across services.
CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    slug TEXT NOT NULL UNIQUE,
    logo TEXT,
    -- a JSON object as text, returned as stored
    metadata TEXT,
    created_at TEXT NOT NULL
);

-- role: one role or several, comma-separated (owner, admin, member or a configured one).
CREATE TABLE members (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (organization_id, user_id)
);
CREATE INDEX members_user_id ON members (user_id);

-- status: pending | accepted | rejected | canceled. email is stored lower-cased.
-- team_id: the teams the invitee joins, comma-separated.
CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    team_id TEXT,
    status TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    inviter_id TEXT NOT NULL
);
CREATE INDEX invitations_organization_id ON invitations (organization_id);
CREATE INDEX invitations_email ON invitations (email);

CREATE TABLE teams (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    updated_at TEXT
);
CREATE INDEX teams_organization_id ON teams (organization_id);

CREATE TABLE team_members (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (team_id, user_id)
);
CREATE INDEX team_members_user_id ON team_members (user_id);
