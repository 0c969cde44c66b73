-- An operator's listing of a customer's keys.
CREATE INDEX api_keys_customer ON api_keys (customer_id);
