-- kit's consumer inbox: the events each consumer has handled, written in the transaction of
-- the handler's own changes, so a redelivered event is recognised and skipped.
CREATE TABLE inbox (
    consumer TEXT NOT NULL,
    event_id TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (consumer, event_id)
);
CREATE INDEX inbox_received_at ON inbox (received_at);
