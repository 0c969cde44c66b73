-- Whether a write of customer_id's loads queues a deferred feed-version event (the WHEN of the triggers
-- loads_bump_feed_versions*): only when no event queued in this transaction covers it. The event at
-- commit bumps the customer of its row and every customer the transaction announced, or every customer
-- once it is a writer of every customer (bump_feed_versions), so one event per run of a customer's rows
-- is enough, and one in all once the transaction writes every customer (announce_feed_writer, from its
-- 17th customer). A bulk write of one customer queues one event instead of one a row (each a heap fetch
-- and a PL/pgSQL call at commit: ~0.3 s of an INSERT ... SELECT of 100,000 loads).
--
-- It notes the customer (or `all`) in a transaction-local setting as it answers yes, and PostgreSQL queues
-- the event right after a WHEN that answers yes, so the setting names a queued event and nothing else. A
-- savepoint rolled back forgets both together (its events and its settings); bump_feed_versions clears
-- the setting as events fire (`SET CONSTRAINTS ... IMMEDIATE`), so writes after that queue again.
-- LANGUAGE sql without SET and a CASE: PostgreSQL inlines it into the trigger's WHEN, which costs a
-- setting read a row, and the CASE makes the write of the setting happen only on yes.
CREATE OR REPLACE FUNCTION feed_version_event_wanted(customer_id bigint) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  SELECT CASE
           WHEN current_setting('loadfeed.feed_version_event_for', true) IN (customer_id::text, 'all') THEN false
           WHEN current_setting('loadfeed.feed_writer_of_all', true) = 'yes' THEN set_config('loadfeed.feed_version_event_for', 'all', true) IS NOT NULL
           ELSE set_config('loadfeed.feed_version_event_for', customer_id::text, true) IS NOT NULL
         END
$$;
