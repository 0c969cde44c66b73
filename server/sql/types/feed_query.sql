-- The feed's query (SPEC §1, §3), what feed_loads(feed_query) reads: whose loads, the 12-month window's
-- start, the filters (NULL: no filter) and the settled horizon (feed_settled_through). src/loads/list.ts
-- sends it as one parameter. A type is not replaced in place: a change is a versioned migration (ALTER
-- TYPE) and this file together (README.md, "Fixed definitions").
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
