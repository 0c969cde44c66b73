-- The feed's rules, written once in SQL, so that each statement of src/loads/list-statements.ts is a few
-- lines a reader can paste into psql. feed_loads, load_json and feed_state are LANGUAGE sql, STABLE, one
-- SELECT: PostgreSQL inlines them into the calling statement and plans it as if they were written out
-- there — the absent filters (NULL parameters) fold away, the window's bound proves the feed index's
-- predicate, and the page is an index-only scan (test/db/feed-index.test.ts checks the plan).

-- A customer's loads as the feed serves them (SPEC §1, §3): inside the 12-month window, matching the
-- filters given (NULL: no filter), and settled (stamped at or before the horizon, feed_settled_through).
-- The previous release's instances call it with these eleven arguments.
CREATE OR REPLACE FUNCTION feed_loads(
  p_customer_id bigint,
  p_window_start timestamptz,
  p_updated_since timestamptz,
  p_statuses load_status[],
  p_pickup_from timestamptz,
  p_pickup_to timestamptz,
  p_delivery_from timestamptz,
  p_delivery_to timestamptz,
  p_po_number text,
  p_billing_ref_number text,
  p_settled_through timestamptz
) RETURNS SETOF loads LANGUAGE sql STABLE AS $$
  SELECT * FROM loads AS l
   WHERE l.customer_id = p_customer_id
     AND l.scheduled_pickup_date >= p_window_start
     AND (p_updated_since IS NULL OR l.updated_at >= p_updated_since)
     AND (p_statuses IS NULL OR l.status = ANY (p_statuses))
     AND (p_pickup_from IS NULL OR l.scheduled_pickup_date >= p_pickup_from)
     AND (p_pickup_to IS NULL OR l.scheduled_pickup_date <= p_pickup_to)
     AND (p_delivery_from IS NULL OR l.scheduled_delivery_date >= p_delivery_from)
     AND (p_delivery_to IS NULL OR l.scheduled_delivery_date <= p_delivery_to)
     AND (p_po_number IS NULL OR l.po_number = p_po_number)
     AND (p_billing_ref_number IS NULL OR l.billing_ref_number = p_billing_ref_number)
     AND l.updated_at <= p_settled_through
$$;

-- The same, for a query given as one value (src/loads/list-statements.ts). PostgreSQL plans a statement
-- with its parameters' values: it inlines both functions, and reads each field of the value as the
-- constant it is, so the plan is the one the call with separate arguments gets.
CREATE OR REPLACE FUNCTION feed_loads(q feed_query) RETURNS SETOF loads LANGUAGE sql STABLE AS $$
  SELECT * FROM feed_loads(q.customer_id, q.window_start, q.updated_since, q.statuses, q.pickup_from, q.pickup_to,
                           q.delivery_from, q.delivery_to, q.po_number, q.billing_ref_number, q.settled_through)
$$;
