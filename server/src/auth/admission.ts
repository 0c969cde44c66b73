// A request's admission, in one round trip on the primary (admit_request in
// migrations/0014_rate-window-on-the-database-clock.sql): the presented key looked up by its hash, the
// request counted against the key's rolling window on the database's clock, and the customer's settled
// horizon fixed before the page is read. No instance's clock takes part: every instance counts and
// answers alike, whatever its own clock says.
import type pg from 'pg';
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import { decisionOf, type RateDecision, type WindowRow } from '../rate-limit/window.js';
import { LAST_USED_RESOLUTION_MS, type ApiKeyCredentials } from './credentials.js';
import { hashKey } from './key-format.js';

export interface Admission {
  credentials: ApiKeyCredentials;
  /** Admitted or refused (a 429), with what the rate headers say. */
  decision: RateDecision;
  /** The customer's settled horizon (ISO, milliseconds, Z): the page reads rows stamped at or before it. */
  settledThrough: string;
  /** The customer's feed version, read after the horizon: a standby whose snapshot shows it may serve the page (db/routing.ts). */
  feedVersion: bigint;
}

interface AdmissionRow extends WindowRow {
  key_id: string;
  customer_id: string;
  customer_code: string;
  rate_limit: number | null;
  counted_at: Date;
  settled_through: Date;
  feed_version: string;
}

const ADMIT_REQUEST_SQL = `
SELECT key_id, customer_id::text AS customer_id, customer_code, rate_limit, admitted, counted, oldest, admits_at, counted_at, settled_through, feed_version::text AS feed_version
  FROM admit_request($1::bytea, $2::integer, $3::integer * interval '1 millisecond', $4::integer * interval '1 millisecond')`;

/** The admission of a request presenting `key`, or null when no active key has it (a 401, not counted). */
export async function admitRequest(pool: pg.Pool, key: string, defaultLimit: number): Promise<Admission | null> {
  const { rows } = await pool.query<AdmissionRow>(ADMIT_REQUEST_SQL, [hashKey(key), defaultLimit, RATE_WINDOW_MS, LAST_USED_RESOLUTION_MS]);
  const row = rows[0];
  if (!row) return null;
  const limit = row.rate_limit ?? defaultLimit;
  return {
    credentials: { keyId: row.key_id, customerId: row.customer_id, customerCode: row.customer_code, rateLimit: row.rate_limit },
    decision: decisionOf(row, limit, row.counted_at),
    settledThrough: row.settled_through.toISOString(),
    feedVersion: BigInt(row.feed_version),
  };
}
