-- A replay someone asked for (an event's, or a time range's): when its manual attempt is due;
-- NULL when none is owed. The scheduler claims it like a retry, within the endpoint's room,
-- so replays never run more attempts at once at an endpoint than its limit. A claimed replay
-- holds its claim's end here until its attempt clears it.
ALTER TABLE deliveries ADD COLUMN replay_at TIMESTAMPTZ;
CREATE INDEX deliveries_replay_due ON deliveries (replay_at) WHERE replay_at IS NOT NULL;
