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
