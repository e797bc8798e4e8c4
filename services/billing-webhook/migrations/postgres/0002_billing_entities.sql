-- The projections: the current state of every entity the payments platform told us about (one
-- row per kind and id: customer, customer_state, subscription, order, refund, benefit_grant,
-- checkout, product, benefit, discount, organization, member), kept as the newest event left
-- it. Versions are microseconds since the epoch, so they compare as numbers on both backends:
-- a row changes only for an event whose entity is newer (`modified_at`, else `created_at`),
-- or as new with a later event timestamp; an older or replayed event changes nothing.
CREATE TABLE billing_entities (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    -- The payments platform's customer the entity belongs to, with the customer's
    -- `external_id` (our user id) and email as the event carried them: how a signed-in user
    -- finds their own rows.
    customer_id TEXT,
    external_id TEXT,
    email TEXT,
    -- The seller organization on the payments platform.
    organization_id TEXT,
    status TEXT,
    entity_version BIGINT NOT NULL,
    event_version BIGINT NOT NULL,
    -- The id of the stored event that last set this row, and the entity's JSON as it sent it.
    event_id TEXT NOT NULL,
    data TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX billing_entities_customer ON billing_entities (customer_id, kind);
CREATE INDEX billing_entities_external_id ON billing_entities (external_id, kind);
CREATE INDEX billing_entities_email ON billing_entities (email, kind);
