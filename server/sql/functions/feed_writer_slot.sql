-- A customer's slot in a feed writer's lock key (feed_writer_lock_key). Customers whose ids are equal
-- mod 65535 share a slot: a writer of one then holds the other back too, never less.
CREATE OR REPLACE FUNCTION feed_writer_slot(customer_id bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (customer_id % 65535)::integer
$$;
