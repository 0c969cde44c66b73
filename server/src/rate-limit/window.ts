// The rolling 60-second window of a key, counted in PostgreSQL (count_rate_limited_request in
// migrations/0003_rate-limit.sql) so that every instance of the server shares it.
import type pg from 'pg';

export const RATE_WINDOW_MS = 60_000;

export interface RateDecision {
  admitted: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Unix epoch seconds, rounded up, when the oldest counted request leaves the window; now when none is counted. */
  resetAt: number;
  /** On a refusal: whole seconds, at least 1, until a request will be admitted. */
  retryAfter?: number;
}

interface WindowRow {
  admitted: boolean;
  counted: number;
  oldest: Date | null;
  admits_at: Date | null;
}

/** Counts one request against `keyId`'s window at `now`, admitting it when the window has room. */
export async function countRequest(pool: pg.Pool, keyId: string, limit: number, now: Date): Promise<RateDecision> {
  const { rows } = await pool.query<WindowRow>(
    `SELECT admitted, counted, oldest, admits_at
       FROM count_rate_limited_request($1::uuid, $2::integer, $3::timestamptz, $4::integer * interval '1 millisecond')`,
    [keyId, limit, now, RATE_WINDOW_MS],
  );
  const row = rows[0]!;
  const nowMs = now.getTime();
  const decision: RateDecision = {
    admitted: row.admitted,
    limit,
    remaining: Math.max(0, limit - row.counted),
    resetAt: Math.ceil((row.oldest ? row.oldest.getTime() + RATE_WINDOW_MS : nowMs) / 1000),
  };
  if (!row.admitted) {
    const admitsAt = (row.admits_at ?? now).getTime() + RATE_WINDOW_MS;
    decision.retryAfter = Math.max(1, Math.ceil((admitsAt - nowMs) / 1000));
  }
  return decision;
}

/** The headers DECISIONS.md puts on 200, 400 and 429 responses. */
export function rateHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
  };
  if (decision.retryAfter !== undefined) headers['Retry-After'] = String(decision.retryAfter);
  return headers;
}
