-- Up Migration

-- Each load's JSON is made when a page is read, no longer stored with the row (server/README.md, "Where a
-- page's JSON is made"). The stored column (0010) cost every write of a load 8x the write without it
-- (INSERT ... SELECT of 100,000 loads: 11.6 s against 1.35 s bare) and tripled the table (116 MB against
-- 40 MB), for JSON that a delta feed mostly reads once. Most of that was not the JSON but its wrapper:
-- a generated column takes IMMUTABLE functions only, and api_load_json, declared IMMUTABLE over STABLE
-- to_char, is never inlined, so each row ran the SQL-function executor and seven nested api_timestamp
-- calls. load_json below is one STABLE expression that PostgreSQL inlines into the page's statement:
-- 100 rows cost about as much as one stored row's write did.

-- Taken without queueing: a waiting ACCESS EXCLUSIVE request would stop every reader of loads behind it
-- while a long writer runs; this retries instead, so readers pass until the writers are done.
DO $$
BEGIN
  LOOP
    BEGIN
      SET LOCAL lock_timeout = '100ms';
      LOCK TABLE loads IN ACCESS EXCLUSIVE MODE;
      EXIT;
    EXCEPTION WHEN lock_not_available THEN
      PERFORM pg_sleep(0.2);
    END;
  END LOOP;
  SET LOCAL lock_timeout = 0;
END
$$;

-- The updatedAt trigger compared rows with the stored column set aside (0012); with the column gone, that
-- line goes, and nothing else of the trigger changes. CREATE OR REPLACE resets the function's settings, so
-- its search_path (0012: logical replication's workers run with an empty one) is set again.
CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  requested timestamptz;
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    RETURN OLD;
  END IF;
  requested := NEW.updated_at;
  IF TG_OP = 'INSERT' THEN
    NEW.created_at := now();
  ELSE
    NEW.created_at := OLD.created_at;
  END IF;
  -- Nested, so that an ordinary writer never reads api_keys (it may hold no privilege on it).
  IF current_setting('loadfeed.backdating_customer', true) = NEW.customer_id::text
     AND requested IS NOT NULL
     AND (TG_OP = 'INSERT' OR requested IS DISTINCT FROM OLD.updated_at) THEN
    IF NOT EXISTS (SELECT 1 FROM api_keys AS k WHERE k.customer_id = NEW.customer_id) THEN
      PERFORM announce_feed_writer(NEW.customer_id, timestamptz '2020-01-01T00:00:00Z');
      NEW.updated_at := least(date_trunc('milliseconds', requested), date_trunc('milliseconds', clock_timestamp()));
      RETURN NEW;
    END IF;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    NEW.updated_at := OLD.updated_at;
    -- Decimals are served as the strings stored: 10.5 rewritten as 10.50 is equal, but not the same JSON.
    IF NEW IS NOT DISTINCT FROM OLD
       AND (NEW.miles::text, NEW.total_cost::text) IS NOT DISTINCT FROM (OLD.miles::text, OLD.total_cost::text) THEN
      RETURN NEW;
    END IF;
    IF NEW.customer_id IS DISTINCT FROM OLD.customer_id THEN
      PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    END IF;
  END IF;
  PERFORM announce_feed_writer(NEW.customer_id, date_trunc('milliseconds', clock_timestamp()));
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION loads_keep_updated_at() SET search_path = %I, pg_catalog', current_schema());
END
$$;

ALTER TABLE loads DROP COLUMN api_json;

-- A load's JSON text, exactly what JSON.stringify makes of the API's Load (test/loads/load-json.test.ts):
-- no spaces, nulls present, date-times in UTC with milliseconds and Z, decimals as the strings stored.
-- LANGUAGE sql, STABLE like what it calls, one SELECT: inlined into the statement that calls it.
CREATE OR REPLACE FUNCTION load_json(l loads) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT row_to_json(ROW(
    l.load_number, l.po_number, l.billing_ref_number,
    l.origin_city, l.origin_state, l.origin_zip, l.origin_warehouse,
    l.destination_city, l.destination_state, l.destination_zip, l.destination_warehouse,
    l.status,
    to_char(l.scheduled_pickup_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), l.scheduled_pickup_time,
    to_char(l.scheduled_delivery_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), l.scheduled_delivery_time,
    to_char(l.tendered_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    to_char(l.actual_pickup_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    to_char(l.actual_delivery_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    to_char(l.requested_delivery_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    l.miles::text, l.total_cost::text,
    to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )::api_load)::text
$$;

-- The previous release's page statements read `l.api_json`; with no such column PostgreSQL reads that as
-- api_json(l), so its instances keep serving the same pages while and after this applies.
CREATE FUNCTION api_json(l loads) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT load_json(l)
$$;

DROP FUNCTION api_load_json(text, text, text, text, text, text, text, text, text, text, text, load_status, timestamptz, text, timestamptz, text, timestamptz, timestamptz, timestamptz, timestamptz, numeric, numeric, timestamptz);
DROP FUNCTION api_timestamp(timestamptz);

-- Down Migration

-- Not reversed in place: today's functions and triggers are server/sql's (sql/README.md), and what this replaced is in git history.
DO $$ BEGIN RAISE EXCEPTION 'migration 0015 is not reversible: restore the backup taken before the upgrade'; END $$;
