-- The delivery-date range (deliveryFrom, deliveryTo): as loads_feed_pickup_day for the pickup range, by UTC
-- delivery day and status. Loads without a pickup date are never in the window; those without a delivery
-- date never in a delivery range.
CREATE INDEX loads_feed_delivery_day ON loads (customer_id, ((scheduled_delivery_date AT TIME ZONE 'UTC')::date), status, updated_at, id)
  INCLUDE (scheduled_delivery_date, scheduled_pickup_date)
  WHERE scheduled_pickup_date IS NOT NULL AND scheduled_delivery_date IS NOT NULL;
