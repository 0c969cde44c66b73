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
-- The trigger carries its search_path (the schema it was created in): logical replication's workers run
-- with an empty one.
CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    RETURN OLD;
  END IF;
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
      PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    END IF;
  END IF;
  -- The customer this transaction announced last, read from a setting of its own: a bulk write of one
  -- customer's rows asks announce_feed_writer once, not once a row (about 4-5 µs a row saved: ~0.45 s of
  -- an INSERT ... SELECT of 100,000 loads). The setting is set right after the announcement, in the same
  -- (sub)transaction, so a savepoint rolled back forgets both together with the lock.
  IF current_setting('loadfeed.feed_writer_announced', true) IS DISTINCT FROM NEW.customer_id::text THEN
    PERFORM announce_feed_writer(NEW.customer_id, date_trunc('milliseconds', clock_timestamp()));
    PERFORM set_config('loadfeed.feed_writer_announced', NEW.customer_id::text, true);
  END IF;
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;
