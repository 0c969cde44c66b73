-- Up Migration

-- The feed's rules, written once in SQL, so that each statement of src/loads/list-statements.ts is a few
-- lines a reader can paste into psql. All three are LANGUAGE sql, STABLE, one SELECT: PostgreSQL inlines
-- them into the calling statement and plans it as if they were written out there — the absent filters
-- (NULL parameters) fold away, the window's bound proves the feed index's predicate, and the page is an
-- index-only scan (test/db/feed-index.test.ts checks the plan; measured no slower in bench/).

-- A customer's loads as the feed serves them (SPEC §1, §3): inside the 12-month window, matching the
-- filters given (NULL: no filter), and settled (stamped at or before the horizon, 0006_settled-feed.sql).
CREATE FUNCTION feed_loads(
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

-- A load as the API shows it (SPEC §2): every field, in the contract's order, under its name.
CREATE TYPE api_load AS (
  "loadNumber" text,
  "poNumber" text,
  "billingRefNumber" text,
  "originCity" text,
  "originState" text,
  "originZip" text,
  "originWarehouse" text,
  "destinationCity" text,
  "destinationState" text,
  "destinationZip" text,
  "destinationWarehouse" text,
  "status" load_status,
  "scheduledPickupDate" text,
  "scheduledPickupTime" text,
  "scheduledDeliveryDate" text,
  "scheduledDeliveryTime" text,
  "tenderedDate" text,
  "actualPickupDate" text,
  "actualDeliveryDate" text,
  "requestedDeliveryDate" text,
  "miles" text,
  "totalCost" text,
  "updatedAt" text
);

-- A load's JSON text, exactly what JSON.stringify makes of the API's Load: no spaces, nulls present,
-- date-times in UTC with milliseconds and Z, decimals as the strings stored (row_to_json escapes text as
-- JSON.stringify does). Built here, a page costs Node one text value instead of 2,300 parsed fields.
CREATE FUNCTION load_json(l loads) RETURNS text LANGUAGE sql STABLE AS $$
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

-- The customer's feed version and latest stamp (0004, 0006), one row even for a customer with no loads
-- yet (version 0, no stamp). Read in the same snapshot as the rows: the count cache and the standby
-- check rest on it (src/loads/count-cache.ts, src/db/routing.ts).
CREATE FUNCTION feed_state(p_customer_id bigint)
RETURNS TABLE (feed_version text, latest_updated_at timestamptz) LANGUAGE sql STABLE AS $$
  SELECT coalesce(max(v.version), 0)::text, max(v.latest_updated_at)
    FROM customer_feed_versions AS v
   WHERE v.customer_id = p_customer_id
$$;

-- Down Migration

DROP FUNCTION feed_state(bigint);
DROP FUNCTION load_json(loads);
DROP TYPE api_load;
DROP FUNCTION feed_loads(bigint, timestamptz, timestamptz, load_status[], timestamptz, timestamptz, timestamptz, timestamptz, text, text, timestamptz);
