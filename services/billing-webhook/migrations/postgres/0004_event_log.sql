-- The event log an organization reads (and replays from): which organization an event belongs
-- to — the id its entity names as `metadata.referenceId`, or the organization that sent a test
-- event — and where it came from: `polar` (the intake) or `test` (a test event, sent to one
-- endpoint, never projected). Platform organizations read every event. Events stored before
-- this migration (the fan-out shipped with it, unreleased before) belong to no organization.
ALTER TABLE received_events ADD COLUMN organization_id TEXT;
ALTER TABLE received_events ADD COLUMN origin TEXT NOT NULL DEFAULT 'polar';
CREATE INDEX received_events_organization ON received_events (organization_id, received_at);

-- Who registered an endpoint, as the mail telling them it was disabled greets them and in
-- their language (the platform's language code; 3 is English).
ALTER TABLE endpoints ADD COLUMN created_by_name TEXT NOT NULL DEFAULT '';
ALTER TABLE endpoints ADD COLUMN created_by_language INTEGER NOT NULL DEFAULT 3;
