-- The admin plugin's session field (better-auth §10.1): the admin who started this
-- impersonation session, if it is one. Listed sessions leave these out.
ALTER TABLE sessions ADD COLUMN impersonated_by TEXT;
