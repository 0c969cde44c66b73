-- The pickup-date range (pickupFrom, pickupTo): a customer's loads by UTC pickup day and status, each
-- bucket's in the feed's order, so that a page walks each bucket of the range (of the statuses asked for,
-- if any) from its start and takes no more than the page needs, merged (src/loads/list-statements.ts, the
-- `pickup days` access): O(buckets x page), never more than the range's matches, however many the range
-- holds. Covering, so the walk is an index-only scan that checks every filter in the index; the day bounds
-- feed_loads.sql adds to a pickup range seek here, and so does a count of the range's rows or of a partial
-- day (feed_count.sql).
CREATE INDEX loads_feed_pickup_day ON loads (customer_id, ((scheduled_pickup_date AT TIME ZONE 'UTC')::date), status, updated_at, id)
  INCLUDE (scheduled_pickup_date, scheduled_delivery_date)
  WHERE scheduled_pickup_date IS NOT NULL;
