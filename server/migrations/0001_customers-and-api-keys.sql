-- Up Migration

-- A customer is the unit of scope: every API key and every load belongs to exactly one.
CREATE TABLE customers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  code text NOT NULL UNIQUE CHECK (code ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  name text NOT NULL CHECK (name <> ''),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a key is kept, so a copy of this table grants no access. `hint` is the key's
-- fixed prefix and last characters, enough for an operator to tell keys apart.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  customer_id bigint NOT NULL REFERENCES customers (id),
  key_hash bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
  hint text NOT NULL,
  rate_limit integer CHECK (rate_limit >= 1),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

CREATE INDEX api_keys_customer ON api_keys (customer_id);

-- Down Migration

DROP TABLE api_keys;
DROP TABLE customers;
