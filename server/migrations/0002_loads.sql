-- Up Migration

-- The closed status list of SPEC §3; a test compares it with the contract's list.
CREATE TYPE load_status AS ENUM (
  'PrePlanning', 'Available', 'Covered', 'Dispatched', 'Loading', 'InTransit', 'Unloading',
  'Delivered', 'Claims', 'PenApp', 'Completed', 'OnHold', 'Cancelled'
);

-- One column per Load field, named as the field in snake_case, so an operator's ETL maps names without
-- a table. Decimals are numeric so that "1234.50" comes back as written; date-times are timestamptz.
CREATE TABLE loads (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES customers (id),
  load_number text NOT NULL CHECK (load_number <> ''),
  po_number text,
  billing_ref_number text,
  origin_city text,
  origin_state text CHECK (origin_state ~ '^[A-Za-z]{2}$'),
  origin_zip text,
  origin_warehouse text,
  destination_city text,
  destination_state text CHECK (destination_state ~ '^[A-Za-z]{2}$'),
  destination_zip text,
  destination_warehouse text,
  status load_status NOT NULL,
  scheduled_pickup_date timestamptz,
  scheduled_pickup_time text CHECK (scheduled_pickup_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  scheduled_delivery_date timestamptz,
  scheduled_delivery_time text CHECK (scheduled_delivery_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  tendered_date timestamptz,
  actual_pickup_date timestamptz,
  actual_delivery_date timestamptz,
  requested_delivery_date timestamptz,
  miles numeric,
  total_cost numeric,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (customer_id, load_number)
);

-- The updatedAt rule (SPEC §1) is kept here, whoever writes the row (the importer, an ETL, psql):
-- an insert is stamped with its transaction's start, truncated to milliseconds so that the value a
-- client reads back is the value `updatedSince` compares against, and so that every row one
-- transaction writes shares one stamp; an update that changes no value keeps the old stamp.
CREATE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.created_at := now();
    NEW.updated_at := date_trunc('milliseconds', now());
    RETURN NEW;
  END IF;
  NEW.created_at := OLD.created_at;
  NEW.updated_at := OLD.updated_at;
  IF NEW IS DISTINCT FROM OLD THEN
    NEW.updated_at := date_trunc('milliseconds', now());
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER loads_keep_updated_at
  BEFORE INSERT OR UPDATE ON loads
  FOR EACH ROW EXECUTE FUNCTION loads_keep_updated_at();

-- Exact-match filters; the customer leads because every query is scoped to one.
CREATE INDEX loads_po_number ON loads (customer_id, po_number) WHERE po_number IS NOT NULL;
CREATE INDEX loads_billing_ref_number ON loads (customer_id, billing_ref_number) WHERE billing_ref_number IS NOT NULL;

-- The feed index: the list and count queries run as index-only scans over it. Its predicate holds a
-- fixed cutoff that lies before the 12-month window's start; a query's own cutoff (a bound parameter,
-- later than this one) implies the predicate, so the planner keeps choosing this index. As the window
-- moves, the server re-creates the index with a later cutoff (src/db/feed-index.ts), so that it does
-- not keep rows that have aged out; the name carries the cutoff, which is how the server finds it.
DO $$
DECLARE
  cutoff date := date_trunc('month', now() AT TIME ZONE 'UTC' - interval '13 months')::date;
BEGIN
  EXECUTE format(
    'CREATE INDEX %I ON loads (customer_id, updated_at, id) INCLUDE (scheduled_pickup_date, scheduled_delivery_date, status) WHERE scheduled_pickup_date >= %L::timestamptz',
    'loads_feed_since_' || to_char(cutoff, 'YYYY_MM_DD'),
    to_char(cutoff, 'YYYY-MM-DD') || 'T00:00:00Z'
  );
END
$$;

-- Down Migration

DROP TABLE loads;
DROP FUNCTION loads_keep_updated_at();
DROP TYPE load_status;
