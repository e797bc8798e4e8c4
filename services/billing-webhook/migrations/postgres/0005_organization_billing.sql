-- The organization an entity was bought for: its `metadata.referenceId`, how better-auth's
-- payments plugin marks an organization's purchase (billing-webhooks reference §6). Owners and
-- admins read their organization's subscriptions and orders by it. Rows filed before this
-- migration take it from the JSON they keep.
ALTER TABLE billing_entities ADD COLUMN reference_id TEXT;
UPDATE billing_entities SET reference_id = NULLIF(data::jsonb -> 'metadata' ->> 'referenceId', '')
    WHERE jsonb_typeof(data::jsonb -> 'metadata' -> 'referenceId') = 'string';
CREATE INDEX billing_entities_reference ON billing_entities (reference_id, kind);
