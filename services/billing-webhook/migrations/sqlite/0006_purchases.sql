-- Which organization each purchase (a subscription or an order) was made for, so that the
-- events of entities that carry no `referenceId` of their own — benefit grants, refunds,
-- renewal orders — reach that organization's event log and endpoints (billing-webhooks
-- reference §6: only the checkout's metadata, copied onto orders and subscriptions, names it).
--
-- A row is written by whichever event of the purchase is handled first: by the purchase's own
-- event with its organization, or by a dependent event with none yet. Writing the row before
-- reading it is what orders two such events handled at once: the second waits on the first's
-- row lock, then reads what it committed.
CREATE TABLE billing_purchases (
    id TEXT PRIMARY KEY,
    organization_id TEXT
);
INSERT INTO billing_purchases (id, organization_id)
    SELECT id, reference_id FROM billing_entities
    WHERE kind IN ('subscription', 'order') AND reference_id IS NOT NULL
    ON CONFLICT (id) DO NOTHING;

-- A stored event whose purchase's organization was not known yet when it was handled: it is
-- given that organization, and fanned out to it, when the purchase's own event names it.
ALTER TABLE received_events ADD COLUMN purchase_id TEXT;
CREATE INDEX received_events_awaiting_purchase ON received_events (purchase_id)
    WHERE purchase_id IS NOT NULL AND organization_id IS NULL;
