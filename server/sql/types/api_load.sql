-- A load as the API shows it (SPEC §2): every field, in the contract's order, under its name; load_json
-- casts a row to it. A type is not replaced in place: a change is a versioned migration (ALTER TYPE) and this
-- file together (README.md, "Fixed definitions").
CREATE TYPE api_load AS (
  "loadNumber" text,
  "poNumber" text,
  "billingRefNumber" text,
  "originCity" text,
  "originState" text,
  "originZip" text,
  "originWarehouse" text,
  "destinationCity" text,
  "destinationState" text,
  "destinationZip" text,
  "destinationWarehouse" text,
  "status" load_status,
  "scheduledPickupDate" text,
  "scheduledPickupTime" text,
  "scheduledDeliveryDate" text,
  "scheduledDeliveryTime" text,
  "tenderedDate" text,
  "actualPickupDate" text,
  "actualDeliveryDate" text,
  "requestedDeliveryDate" text,
  "miles" text,
  "totalCost" text,
  "updatedAt" text
);
