-- The feed's rules, written once in SQL, so that each statement of src/loads/list-statements.ts is a few
-- lines a reader can paste into psql. feed_loads, load_json and feed_state are LANGUAGE sql, STABLE, one
-- SELECT: PostgreSQL inlines them into the calling statement and plans it as if they were written out
-- there — the absent filters (NULL parameters) fold away, the window's bound proves the feed index's
-- predicate, and the page is an index-only scan (test/db/feed-index.test.ts checks the plan).

-- A customer's loads as the feed serves them (SPEC §1, §3): inside the 12-month window, matching the
-- filters given (NULL: no filter), and settled (stamped at or before the horizon, feed_settled_through).
-- The query is one value (src/loads/list-statements.ts): PostgreSQL plans a statement with its
-- parameters' values, and reads each field of the value as the constant it is. The rules are written
-- here rather than in the form below so that this release's statements inline one function, not two:
-- each inlining parses and analyses the function's body again on every plan (4-5% of a page
-- statement's database CPU, server/README.md, Benchmark).
CREATE OR REPLACE FUNCTION feed_loads(q feed_query) RETURNS SETOF loads LANGUAGE sql STABLE AS $$
  SELECT * FROM loads AS l
   WHERE l.customer_id = q.customer_id
     AND l.scheduled_pickup_date >= q.window_start
     AND (q.updated_since IS NULL OR l.updated_at >= q.updated_since)
     AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
     AND (q.pickup_from IS NULL OR l.scheduled_pickup_date >= q.pickup_from)
     AND (q.pickup_to IS NULL OR l.scheduled_pickup_date <= q.pickup_to)
     AND (q.delivery_from IS NULL OR l.scheduled_delivery_date >= q.delivery_from)
     AND (q.delivery_to IS NULL OR l.scheduled_delivery_date <= q.delivery_to)
     -- A date range's UTC days, which each range implies: what its index (loads_feed_pickup_day,
     -- loads_feed_delivery_day) seeks, where the range alone would read the customer's every day.
     AND (q.pickup_from IS NULL AND q.pickup_to IS NULL
          OR (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date >= (greatest(q.window_start, q.pickup_from) AT TIME ZONE 'UTC')::date)
     AND (q.pickup_to IS NULL OR (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date <= (q.pickup_to AT TIME ZONE 'UTC')::date)
     AND (q.delivery_from IS NULL OR (l.scheduled_delivery_date AT TIME ZONE 'UTC')::date >= (q.delivery_from AT TIME ZONE 'UTC')::date)
     AND (q.delivery_to IS NULL OR (l.scheduled_delivery_date AT TIME ZONE 'UTC')::date <= (q.delivery_to AT TIME ZONE 'UTC')::date)
     AND (q.po_number IS NULL OR l.po_number = q.po_number)
     AND (q.billing_ref_number IS NULL OR l.billing_ref_number = q.billing_ref_number)
     AND l.updated_at <= q.settled_through
$$;

-- The same with the query's fields as eleven arguments, as the previous release's instances call it. The
-- value made of them is taken apart again when the call is inlined (a field of a ROW is its expression),
-- so their plans are the ones they had.
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
  SELECT * FROM feed_loads(ROW(p_customer_id, p_window_start, p_updated_since, p_statuses, p_pickup_from, p_pickup_to,
                               p_delivery_from, p_delivery_to, p_po_number, p_billing_ref_number, p_settled_through)::feed_query)
$$;
