-- The billingRefNumber filter: an exact match, scoped to one customer as every query is.
CREATE INDEX loads_billing_ref_number ON loads (customer_id, billing_ref_number) WHERE billing_ref_number IS NOT NULL;
