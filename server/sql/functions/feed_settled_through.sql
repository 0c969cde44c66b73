-- The customer's settled horizon: every change to its loads stamped at or before the returned instant is
-- committed or rolled back (feed_writer_lock_key.sql says how writers announce themselves). One
-- millisecond before the earliest of the reading's clock and the first stamp of every writer of the
-- customer or of every customer still in flight at the reading. Slot 0 (the start-up probe's customer 0,
-- src/db/settled-feed-check.ts) always reads pg_locks itself: the probe asks right after announcing a
-- writer, and must see it.
-- When the reading holds no writer (the common case) the horizon is the reading's clock less a
-- millisecond, without the query over its empty arrays.
CREATE OR REPLACE FUNCTION feed_settled_through(p_customer_id bigint) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  customer_slot integer := feed_writer_slot(p_customer_id);
  reading feed_writers_reading;
  oldest_writer timestamptz;
BEGIN
  IF customer_slot = 0 THEN
    reading.read_at := date_trunc('milliseconds', clock_timestamp());
    SELECT array_agg(f.slot), array_agg(f.first_stamp) INTO reading.slots, reading.first_stamps FROM feed_writers(reading.read_at) AS f;
  ELSE
    reading := feed_writers_reading();
  END IF;
  -- Most readings find no writer at all: then the horizon is the reading's clock, without a query.
  IF cardinality(reading.slots) > 0 THEN
    SELECT min(w.first_stamp) INTO oldest_writer
      FROM unnest(reading.slots, reading.first_stamps) AS w(slot, first_stamp)
     WHERE w.slot = customer_slot OR w.slot = 65535;
  END IF;
  RETURN least(reading.read_at, oldest_writer) - interval '1 millisecond';
END
$$;
