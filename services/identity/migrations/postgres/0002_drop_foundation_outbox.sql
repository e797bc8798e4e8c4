-- The outbox moved to kit (its migration 9001 creates it in every service's database, with the
-- columns the relay now needs). The foundation's table held JSON events that no service
-- consumed (user.created, session.revoked); it is dropped here so 9001 can create the new one.
-- Migrations already applied are never edited: databases created before the move keep working.
DROP TABLE outbox;
