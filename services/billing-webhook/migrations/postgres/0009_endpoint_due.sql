-- An endpoint's due deliveries, soonest first: what the scheduler claims for an endpoint as
-- soon as one of its attempts ends, while a backlog waits for its room.
CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at)
    WHERE status = 'pending';
