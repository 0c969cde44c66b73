-- The poNumber filter: an exact match, scoped to one customer as every query is.
CREATE INDEX loads_po_number ON loads (customer_id, po_number) WHERE po_number IS NOT NULL;
