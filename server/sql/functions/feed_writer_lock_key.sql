-- The settled feed (DECISIONS.md, "Loads in the reference server"; server/README.md, "The settled feed").
-- A transaction announces itself as a writer of a customer's loads before it stamps its first change to
-- them, by taking a shared transaction-level advisory lock whose key holds the customer's slot and that
-- first stamp (announce_feed_writer); feed_settled_through reads the clock, then the locks.
--
-- The writer's key (bigint form of an advisory lock; pg_locks shows it as classid = its high 32 bits,
-- objid = its low 32 bits, objsubid = 1):
--   bits 63..54  the marker 421 (0b0110100101): a key without it is not the feed's;
--   bits 53..38  the customer's slot (feed_writer_slot); slot 65535 is a writer of every customer;
--   bits 37..0   the writer's first stamp in 8 ms units since 2020-01-01T00:00:00Z, rounded down (so a
--                decoded stamp is never later than the real one), until 2089-09.
-- feed_writers decodes the same layout.
CREATE OR REPLACE FUNCTION feed_writer_lock_key(slot integer, stamp timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (421::bigint << 54)
       | (slot::bigint << 38)
       | least(274877906943, greatest(0, floor(extract(epoch FROM stamp - timestamptz '2020-01-01T00:00:00Z') * 125)))::bigint
$$;
