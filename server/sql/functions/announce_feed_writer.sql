-- Announces this transaction as a writer of the customer's loads before it stamps its first change to
-- them. The lock lives in the lock manager's shared memory, where every session sees it at once through
-- pg_locks, whatever role wrote, committed or not; it goes away only after the transaction's commit (or
-- rollback) is visible to new snapshots.
--
-- For its first 16 customers a transaction takes one shared lock each, holding back only those
-- customers; at the 17th it takes one lock as a writer of every customer, at that moment's stamp, and no
-- more: 17 lock-table entries at most, whatever it writes (PostgreSQL's default max_locks_per_transaction
-- is 64). The customers it announced are kept in transaction-local settings (at most 16 ids), so a row
-- costs a short lookup whatever the transaction has written; a savepoint rolled back forgets them
-- together with its locks. bump_feed_versions reads the same settings at commit.
--
-- It carries its search_path (the schema it was created in): the updatedAt trigger, which calls it by its
-- schema-qualified name, runs with the writer's own, and logical replication's workers with an empty one.
CREATE OR REPLACE FUNCTION announce_feed_writer(customer_id bigint, first_stamp timestamptz) RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  announced bigint[];
BEGIN
  IF current_setting('loadfeed.feed_writer_of_all', true) = 'yes' THEN
    RETURN;
  END IF;
  announced := coalesce(nullif(current_setting('loadfeed.feed_writer_customers', true), ''), '{}')::bigint[];
  IF customer_id = ANY (announced) THEN
    RETURN;
  END IF;
  IF cardinality(announced) >= 16 THEN
    PERFORM pg_advisory_xact_lock_shared(feed_writer_lock_key(65535, first_stamp));
    PERFORM set_config('loadfeed.feed_writer_of_all', 'yes', true);
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(feed_writer_key(customer_id, first_stamp));
  PERFORM set_config('loadfeed.feed_writer_customers', (announced || customer_id)::text, true);
END
$$;
