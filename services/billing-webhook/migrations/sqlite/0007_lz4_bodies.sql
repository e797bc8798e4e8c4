-- PostgreSQL compresses stored bodies with lz4 from this migration on; SQLite does not
-- compress values, so there is nothing to change here. Kept so both backends count the same
-- migrations.
SELECT 1;
