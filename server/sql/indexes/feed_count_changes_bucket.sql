-- The counters' changes not folded yet, by bucket (migrations/0021_feed-counts.sql): a count reads its
-- customer's days and statuses here beside feed_counts, as an index-only scan.
CREATE INDEX feed_count_changes_bucket ON feed_count_changes (customer_id, pickup_day, status) INCLUDE (loads);
