-- The organization plugin's session fields (better-auth §11.2): the organization and team the
-- user is working in. The organization service sets them (set-active, set-active-team, a new
-- organization, an accepted invitation) and clears them when the organization goes.
ALTER TABLE sessions ADD COLUMN active_organization_id TEXT;
ALTER TABLE sessions ADD COLUMN active_team_id TEXT;
