-- Up Migration

-- Each load's JSON is written once, when the row is, instead of on every page that reads it: a stored
-- generated column. Measured on the bench's feed (server/README.md), load_json was most of what
-- PostgreSQL spent on a page, a third of it in to_char; reading the stored text costs a copy. PostgreSQL
-- computes the column after the BEFORE triggers, so it holds the stamp loads_keep_updated_at gives the
-- row (0006_settled-feed.sql), and no writer can set it: whoever writes the row, the JSON follows.
-- Adding it rewrites the table once, without firing triggers (no stamp or feed version moves).

-- A date-time as the contract writes it: UTC, milliseconds, Z. IMMUTABLE although to_char is STABLE:
-- to_char is STABLE for the patterns that read the locale (TM…), which this one has none of, and
-- AT TIME ZONE 'UTC' does not read the session's TimeZone. A generated column takes immutable functions only.
CREATE FUNCTION api_timestamp(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- A load's JSON from its columns, in api_load's order (0009_feed-functions.sql): exactly what
-- JSON.stringify makes of the API's Load. IMMUTABLE for the same reason; the enum's labels are fixed by
-- migrations (renaming one would need this column recomputed, as a migration does by rewriting it).
CREATE FUNCTION api_load_json(
  load_number text, po_number text, billing_ref_number text,
  origin_city text, origin_state text, origin_zip text, origin_warehouse text,
  destination_city text, destination_state text, destination_zip text, destination_warehouse text,
  status load_status,
  scheduled_pickup_date timestamptz, scheduled_pickup_time text,
  scheduled_delivery_date timestamptz, scheduled_delivery_time text,
  tendered_date timestamptz, actual_pickup_date timestamptz, actual_delivery_date timestamptz,
  requested_delivery_date timestamptz,
  miles numeric, total_cost numeric,
  updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT row_to_json(ROW(
    load_number, po_number, billing_ref_number,
    origin_city, origin_state, origin_zip, origin_warehouse,
    destination_city, destination_state, destination_zip, destination_warehouse,
    status,
    api_timestamp(scheduled_pickup_date), scheduled_pickup_time,
    api_timestamp(scheduled_delivery_date), scheduled_delivery_time,
    api_timestamp(tendered_date), api_timestamp(actual_pickup_date), api_timestamp(actual_delivery_date),
    api_timestamp(requested_delivery_date),
    miles::text, total_cost::text,
    api_timestamp(updated_at)
  )::api_load)::text
$$;

-- One definition: load_json(l) is the same function over a row (test/loads/load-json.test.ts holds it
-- to JSON.stringify; test/loads/stored-json.test.ts holds the column to load_json after any write).
CREATE OR REPLACE FUNCTION load_json(l loads) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT api_load_json(
    l.load_number, l.po_number, l.billing_ref_number,
    l.origin_city, l.origin_state, l.origin_zip, l.origin_warehouse,
    l.destination_city, l.destination_state, l.destination_zip, l.destination_warehouse,
    l.status,
    l.scheduled_pickup_date, l.scheduled_pickup_time,
    l.scheduled_delivery_date, l.scheduled_delivery_time,
    l.tendered_date, l.actual_pickup_date, l.actual_delivery_date,
    l.requested_delivery_date,
    l.miles, l.total_cost,
    l.updated_at
  )
$$;

ALTER TABLE loads ADD COLUMN api_json text NOT NULL GENERATED ALWAYS AS (api_load_json(
  load_number, po_number, billing_ref_number,
  origin_city, origin_state, origin_zip, origin_warehouse,
  destination_city, destination_state, destination_zip, destination_warehouse,
  status,
  scheduled_pickup_date, scheduled_pickup_time,
  scheduled_delivery_date, scheduled_delivery_time,
  tendered_date, actual_pickup_date, actual_delivery_date,
  requested_delivery_date,
  miles, total_cost,
  updated_at
)) STORED;

-- The updatedAt rule of 0006_settled-feed.sql, but for what "changes no value" compares: the row without
-- api_json, which a BEFORE trigger sees as NULL (PostgreSQL computes it afterwards from the columns this
-- trigger leaves; what is assigned to it here is not kept), and decimals as text. A stamp that stays
-- means the load's JSON stays (test/loads/stored-json.test.ts).
CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  requested timestamptz := NEW.updated_at;
BEGIN
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
    -- A BEFORE trigger sees the generated column as NULL (it is computed after): compare the rest.
    NEW.api_json := OLD.api_json;
    -- Decimals are served as the strings stored: 10.5 rewritten as 10.50 is equal, but not the same JSON.
    IF NEW IS NOT DISTINCT FROM OLD
       AND (NEW.miles::text, NEW.total_cost::text) IS NOT DISTINCT FROM (OLD.miles::text, OLD.total_cost::text) THEN
      RETURN NEW;
    END IF;
  END IF;
  PERFORM announce_feed_writer(NEW.customer_id, date_trunc('milliseconds', clock_timestamp()));
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;

-- Down Migration

-- Not reversed in place: today's functions and triggers are server/sql's (sql/README.md), and what this replaced is in git history.
DO $$ BEGIN RAISE EXCEPTION 'migration 0010 is not reversible: restore the backup taken before the upgrade'; END $$;
