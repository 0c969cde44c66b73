-- The updatedAt rule (SPEC §1), kept here whoever writes the row (the importer, an ETL, psql, logical
-- replication's apply worker): a change is stamped with the time its row is written (clock_timestamp(), at
-- millisecond precision), not the start of its transaction, so a long transaction's change cannot surface
-- carrying a stamp older than rows clients have already read past; and its writer is announced before the
-- stamp (announce_feed_writer), so the settled feed holds the customer back until it commits. A stamp the
-- writer gives is replaced by the write time: backdating (the demo's history, src/seed/history.ts) pauses
-- this trigger for its one statement.
--
-- An update that changes no value keeps its stamp and announces nothing. "No value" is the row with
-- decimals as text: they are served as the strings stored, so 10.5 rewritten as 10.50 is a change. A
-- delete, and an update that moves a load to another customer, announce the customer the row leaves, so
-- that the feed-version bump at commit (bump_feed_versions) knows every customer written.
--
-- It runs on every row written, so it costs as little as a row allows:
-- - The customer this transaction announced last is read from a setting of its own: a bulk write of one
--   customer's rows announces once, not once a row (about 4-5 µs a row saved: ~0.45 s of an INSERT ...
--   SELECT of 100,000 loads). The setting is set right after the announcement, in the same
--   (sub)transaction, so a savepoint rolled back forgets both together with the lock. Another customer
--   already announced (announce_feed_writer keeps at most 16, then announces a writer of every customer)
--   is found in its settings here, without a call.
-- - No `SET search_path`: a function with one sets and restores it around every call (~1 µs a row, 7% of
--   that INSERT). The one name it needs outside pg_catalog, announce_feed_writer, is called by its schema
--   (the schema of the table that fired it, where every definition of server/sql/ lives), as a dynamic
--   statement made at most 17 times a transaction (a bulk move of loads between two customers included);
--   so it works with the writer's search_path and with logical replication's workers', which is empty.
CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The customer to announce, and, for an update that moves the load, the one it moves to (announced
  -- after the one it leaves).
  writer bigint;
  moved_to bigint;
BEGIN
  -- An insert of a customer this transaction announced last (every row of a bulk write but its first):
  -- the stamps alone, what the general path below does for it, in three statements instead of nine
  -- (~3% of an INSERT ... SELECT of 100,000 loads).
  IF TG_OP = 'INSERT' AND current_setting('loadfeed.feed_writer_announced', true) = NEW.customer_id::text THEN
    NEW.created_at := now();
    NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    writer := OLD.customer_id;
  ELSE
    writer := NEW.customer_id;
    IF TG_OP = 'INSERT' THEN
      NEW.created_at := now();
    ELSE
      NEW.created_at := OLD.created_at;
      NEW.updated_at := OLD.updated_at;
      IF NEW IS NOT DISTINCT FROM OLD
         AND (NEW.miles::text, NEW.total_cost::text) IS NOT DISTINCT FROM (OLD.miles::text, OLD.total_cost::text) THEN
        RETURN NEW;
      END IF;
      IF NEW.customer_id IS DISTINCT FROM OLD.customer_id THEN
        writer := OLD.customer_id;
        moved_to := NEW.customer_id;
      END IF;
    END IF;
  END IF;
  LOOP
    -- The test announce_feed_writer starts with, written out: called by name, a function would need the
    -- search_path this trigger does without.
    IF current_setting('loadfeed.feed_writer_announced', true) IS DISTINCT FROM writer::text THEN
      IF current_setting('loadfeed.feed_writer_of_all', true) IS DISTINCT FROM 'yes'
         AND NOT writer = ANY (coalesce(nullif(current_setting('loadfeed.feed_writer_customers', true), ''), '{}')::bigint[]) THEN
        EXECUTE format('SELECT %I.announce_feed_writer($1, $2)', TG_TABLE_SCHEMA) USING writer, date_trunc('milliseconds', clock_timestamp());
      END IF;
      PERFORM set_config('loadfeed.feed_writer_announced', writer::text, true);
    END IF;
    EXIT WHEN moved_to IS NULL;
    writer := moved_to;
    moved_to := NULL;
  END LOOP;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;
