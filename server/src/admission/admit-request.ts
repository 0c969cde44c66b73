// A request's admission, in one round trip on the primary (admit_request,
// server/sql/functions/admit_request.sql): the presented key looked up by its hash, the
// request counted against the key's rolling window on the database's clock, and the customer's settled
// horizon fixed before the page is read. No instance's clock takes part: every instance counts and
// answers alike, whatever its own clock says.
//
// The auth scheme (scheme.ts) knows only credentials: `keyAdmission` is what it asks for a key's
// credentials, and it records on the request what the same round trip decided (the rate decision, the
// horizon and the feed version) for the rate-limit step and the page (request-admission.ts).
import type { Request } from '@hapi/hapi';
import type pg from 'pg';
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import { decisionOf, type RateDecision, type WindowRow } from './rate-window.js';
import { LAST_USED_RESOLUTION_MS, type ApiKeyCredentials } from './credentials.js';
import { hashKey } from './key-format.js';
import { admissionStatements } from '../tracing/statements.js';
import { admissionOf } from './request-admission.js';

export interface Admission {
  credentials: ApiKeyCredentials;
  /** Admitted or refused (a 429), with what the rate headers say. */
  decision: RateDecision;
  /** The customer's settled horizon (ISO, milliseconds, Z): the page reads rows stamped at or before it. */
  settledThrough: string;
  /** The customer's feed version, read after the horizon: a standby whose snapshot shows it may serve the page (db/read-router.ts). */
  feedVersion: bigint;
}

interface AdmissionRow extends WindowRow {
  /** NULL: no active key has the hash. */
  key_id: string | null;
  customer_id: string;
  customer_code: string;
  rate_limit: number | null;
  counted_at: Date;
  settled_through: Date;
  feed_version: string;
}

// The procedure's one row: its OUT parameters as they come back (pg hands bigints over as strings), all
// NULL for an unknown key; the eleven NULLs stand for them in the call. A CALL rather than `SELECT * FROM`
// a function: the statement is parsed on every request (no server-side prepared statements through
// PgBouncer in transaction mode), and a CALL skips the planner and the function scan, 15-20% of the
// admission's database CPU (server/BENCHMARKS.md, "The admission as a procedure"). The intervals are interval parameters, cheaper
// than casts and interval arithmetic in the statement.
const ADMIT_REQUEST_SQL = 'CALL admit_request($1::bytea, $2::integer, $3::interval, $4::interval, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)';
const RATE_WINDOW = `${RATE_WINDOW_MS} milliseconds`;
const LAST_USED_RESOLUTION = `${LAST_USED_RESOLUTION_MS} milliseconds`;

/** The admission of a request presenting `key`, or null when no active key has it (a 401, not counted). */
export async function admitRequest(pool: Pick<pg.Pool, 'query'>, key: string, defaultLimit: number): Promise<Admission | null> {
  const { rows } = await pool.query<AdmissionRow>(ADMIT_REQUEST_SQL, [hashKey(key), defaultLimit, RATE_WINDOW, LAST_USED_RESOLUTION]);
  const row = rows[0];
  if (!row?.key_id) return null;
  const limit = row.rate_limit ?? defaultLimit;
  return {
    credentials: { keyId: row.key_id, customerId: row.customer_id, customerCode: row.customer_code, rateLimit: row.rate_limit },
    decision: decisionOf(row, limit, row.counted_at),
    settledThrough: row.settled_through.toISOString(),
    feedVersion: BigInt(row.feed_version),
  };
}

/** The auth scheme's key lookup: admits the request presenting `key` and records the admission on it. */
export function keyAdmission(pool: pg.Pool, defaultLimit: number): (key: string, request: Request) => Promise<ApiKeyCredentials | null> {
  return async (key, request) => {
    const admission = await admitRequest(admissionStatements(request, pool), key, defaultLimit);
    if (!admission) return null;
    admissionOf(request).key = admission;
    return admission.credentials;
  };
}
