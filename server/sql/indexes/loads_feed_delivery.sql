-- The delivery-date range (deliveryFrom, deliveryTo): as loads_feed_pickup for the pickup range. Loads
-- without a pickup date are never in the window; those without a delivery date never in a delivery range.
CREATE INDEX loads_feed_delivery ON loads (customer_id, scheduled_delivery_date)
  INCLUDE (status, updated_at, id, scheduled_pickup_date)
  WHERE scheduled_pickup_date IS NOT NULL AND scheduled_delivery_date IS NOT NULL;
