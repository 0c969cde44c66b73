// The rate window driven on a simulated database clock: rate_window_admit's `p_at` stands in for the
// clock_timestamp() the servers' admissions read, and decisionOf turns the row into the decision the
// rate headers carry, as admission.ts does.
import type pg from 'pg';
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import { decisionOf, type RateDecision, type WindowRow } from '../../src/rate-limit/window.js';

const ADMIT_AT_SQL = `
SELECT admitted, counted, oldest, admits_at, counted_at
  FROM rate_window_admit($1::uuid, $2::integer, $3::integer * interval '1 millisecond', $4::timestamptz)`;

/** The decision for a request of key `keyId` under `limit` when the database's clock reads `atMs`. */
export async function admitAt(pool: pg.Pool | pg.PoolClient, keyId: string, limit: number, atMs: number): Promise<RateDecision> {
  const { rows } = await pool.query<WindowRow & { counted_at: Date }>(ADMIT_AT_SQL, [keyId, limit, RATE_WINDOW_MS, new Date(atMs)]);
  const row = rows[0]!;
  return decisionOf(row, limit, row.counted_at);
}
