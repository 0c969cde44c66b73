-- A counter per customer that moves with every write to the customer's loads, in the writing transaction,
-- whoever writes, with the latest stamp the customer's loads carry: a count kept at a feed version is
-- exact while the version stays (src/loads/count-cache.ts), and a standby that shows the version holds the
-- page (feed_settled_state). Moved at commit by a deferred row trigger, not statement triggers: logical
-- replication's apply worker fires row triggers but never statement triggers, so a replicated change would
-- otherwise leave the count cache and the standby check on an old version. Lock order: a writer locks
-- loads rows in its own order while it writes, and customer_feed_versions rows only at commit, after its
-- last write, in ascending customer id; so a writer never waits for a version row while it can still wait
-- for a load, and writers of one or many customers cannot deadlock over version rows. One bump per
-- customer and commit: the first event of the commit bumps every customer the transaction announced (a
-- writer of every customer bumps every customer), with a latest stamp read after its last write (an upper
-- bound of its stamps, all the count cache needs); the other events find their customer and stamp covered
-- and return. An event not covered (writes after a `SET CONSTRAINTS ... IMMEDIATE` that fired earlier
-- events) bumps again. Most rows queue no event at all (feed_version_event_wanted, the triggers' WHEN):
-- a row written after the last bump queues one or finds the note of one queued after that bump, so the
-- first event to fire after a write finds the note; it clears it (writes after it queue again) and always
-- bumps, since rows of its run written after its own carry later stamps than its row. An event that finds
-- no note fires in a batch whose first event bumped after every write before it, or stands for its row
-- alone (a load moved to another customer), and its row's stamp and customers tell whether it is covered.
CREATE OR REPLACE FUNCTION bump_feed_versions() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  bumped_through timestamptz := nullif(current_setting('loadfeed.feed_versions_bumped_through', true), '')::timestamptz;
  bumped bigint[] := coalesce(nullif(current_setting('loadfeed.feed_versions_bumped', true), ''), '{}')::bigint[];
  every_customer boolean := current_setting('loadfeed.feed_versions_bumped_all', true) = 'yes';
  latest timestamptz;
  customers bigint[];
BEGIN
  IF current_setting('loadfeed.feed_version_event_for', true) <> '' THEN
    PERFORM set_config('loadfeed.feed_version_event_for', '', true);
  ELSIF bumped_through IS NOT NULL
     AND (TG_OP = 'DELETE' OR NEW.updated_at <= bumped_through)
     AND (every_customer OR (
          (TG_OP = 'INSERT' OR OLD.customer_id = ANY (bumped))
          AND (TG_OP = 'DELETE' OR NEW.customer_id = ANY (bumped)))) THEN
    RETURN NULL;
  END IF;
  latest := date_trunc('milliseconds', clock_timestamp());
  IF current_setting('loadfeed.feed_writer_of_all', true) = 'yes' THEN
    INSERT INTO customer_feed_versions AS v (customer_id, version, latest_updated_at)
    SELECT c.id, 1, latest FROM customers AS c ORDER BY c.id
    ON CONFLICT (customer_id) DO UPDATE
      SET version = v.version + 1, latest_updated_at = greatest(v.latest_updated_at, excluded.latest_updated_at);
    PERFORM set_config('loadfeed.feed_versions_bumped_all', 'yes', true);
  ELSE
    customers := coalesce(nullif(current_setting('loadfeed.feed_writer_customers', true), ''), '{}')::bigint[];
    IF TG_OP <> 'INSERT' THEN customers := customers || OLD.customer_id; END IF;
    IF TG_OP <> 'DELETE' THEN customers := customers || NEW.customer_id; END IF;
    INSERT INTO customer_feed_versions AS v (customer_id, version, latest_updated_at)
    SELECT DISTINCT c.id, 1, latest FROM unnest(customers) AS c(id) ORDER BY c.id
    ON CONFLICT (customer_id) DO UPDATE
      SET version = v.version + 1, latest_updated_at = greatest(v.latest_updated_at, excluded.latest_updated_at);
    PERFORM set_config('loadfeed.feed_versions_bumped', (SELECT array_agg(DISTINCT c) FROM unnest(customers) AS c)::text, true);
  END IF;
  PERFORM set_config('loadfeed.feed_versions_bumped_through', latest::text, true);
  RETURN NULL;
END
$$;
