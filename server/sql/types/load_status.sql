-- The closed status list of SPEC §3; a test compares it with the contract's list. Stored in loads.status:
-- a change is a versioned migration (ALTER TYPE ... ADD VALUE) and this file together (README.md, "Fixed
-- definitions").
CREATE TYPE load_status AS ENUM (
  'PrePlanning', 'Available', 'Covered', 'Dispatched', 'Loading', 'InTransit', 'Unloading',
  'Delivered', 'Claims', 'PenApp', 'Completed', 'OnHold', 'Cancelled'
);
