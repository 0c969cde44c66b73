-- Up Migration

-- The feed's query as one value, so that each statement of src/loads/list-statements.ts calls feed_loads
-- with one argument (sql/types/feed_query.sql says what each field means; sql/functions/feed_loads.sql
-- reads it).
CREATE TYPE feed_query AS (
  customer_id bigint,
  window_start timestamptz,
  updated_since timestamptz,
  statuses load_status[],
  pickup_from timestamptz,
  pickup_to timestamptz,
  delivery_from timestamptz,
  delivery_to timestamptz,
  po_number text,
  billing_ref_number text,
  settled_through timestamptz
);

-- Down Migration

DROP FUNCTION IF EXISTS feed_loads(feed_query);
DROP TYPE feed_query;
