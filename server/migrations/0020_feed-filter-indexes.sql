-- Up Migration
-- The feed's filters read their own rows (sql/indexes/loads_feed_status.sql, loads_feed_pickup_day.sql,
-- loads_feed_delivery_day.sql, and the page statements of src/loads/list-statements.ts that use them): the
-- feed index alone made a filtered page walk the customer's loads in (updated_at, id) order and drop
-- those that did not match, which read every load of a big customer when the matches were all stamped
-- late (in-transit loads, last week's pickups).
-- An index built here is built in the migration's transaction, and writes to loads wait for the build
-- (minutes on millions of loads). So on a big table an operator builds them first, without blocking
-- writes, with CREATE INDEX CONCURRENTLY and the same definitions (server/DESIGN.md, "Upgrade notes"
-- gives the commands): an index that is there and valid is kept without touching loads (no lock on it),
-- and one that a concurrent build left invalid (it failed or was cancelled) is built again.
-- The status index's predicate holds a cutoff, the feed index's (migration 0002), and its name carries it:
-- any valid version there is kept (the server moves it to the month's cutoff, src/db/feed-index.ts), and
-- invalid ones go.
DO $$
DECLARE
  cutoff date := date_trunc('month', now() AT TIME ZONE 'UTC' - interval '13 months')::date;
  left_over text;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
                  WHERE i.indrelid = 'loads'::regclass AND i.indisvalid AND c.relname LIKE 'loads\_feed\_status\_%') THEN
    FOR left_over IN SELECT c.relname FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
                      WHERE i.indrelid = 'loads'::regclass AND c.relname LIKE 'loads\_feed\_status\_%' LOOP
      EXECUTE format('DROP INDEX %I', left_over);
    END LOOP;
    EXECUTE format(
      'CREATE INDEX %I ON loads (customer_id, status, updated_at, id) INCLUDE (scheduled_pickup_date, scheduled_delivery_date) WHERE scheduled_pickup_date >= %L::timestamptz',
      'loads_feed_status_' || to_char(cutoff, 'YYYY_MM_DD'),
      to_char(cutoff, 'YYYY-MM-DD') || 'T00:00:00Z'
    );
  END IF;
  IF NOT EXISTS (SELECT FROM pg_index WHERE indexrelid = to_regclass('loads_feed_pickup_day') AND indisvalid) THEN
    DROP INDEX IF EXISTS loads_feed_pickup_day;
    CREATE INDEX loads_feed_pickup_day ON loads (customer_id, ((scheduled_pickup_date AT TIME ZONE 'UTC')::date), status, updated_at, id)
      INCLUDE (scheduled_pickup_date, scheduled_delivery_date)
      WHERE scheduled_pickup_date IS NOT NULL;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_index WHERE indexrelid = to_regclass('loads_feed_delivery_day') AND indisvalid) THEN
    DROP INDEX IF EXISTS loads_feed_delivery_day;
    CREATE INDEX loads_feed_delivery_day ON loads (customer_id, ((scheduled_delivery_date AT TIME ZONE 'UTC')::date), status, updated_at, id)
      INCLUDE (scheduled_delivery_date, scheduled_pickup_date)
      WHERE scheduled_pickup_date IS NOT NULL AND scheduled_delivery_date IS NOT NULL;
  END IF;
END
$$;

-- Down Migration
DROP INDEX IF EXISTS loads_feed_delivery_day;
DROP INDEX IF EXISTS loads_feed_pickup_day;
DO $$
DECLARE
  version text;
BEGIN
  FOR version IN SELECT c.relname FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
                  WHERE i.indrelid = 'loads'::regclass AND c.relname LIKE 'loads\_feed\_status\_%' LOOP
    EXECUTE format('DROP INDEX %I', version);
  END LOOP;
END
$$;
