// The rolling window of a key (RATE_WINDOW_MS, SPEC §8), counted in PostgreSQL on the database's clock
// (sql/functions/rate_window_admit.sql, called by admit_request) so that every instance of the server
// shares it, whatever the instances' clocks say; here the counted window becomes what the rate headers
// say. They are computed from the database's clock reading the request was counted at, and the
// response's Date is that same reading, so that Reset - Date and Retry-After agree.
import { RATE_WINDOW_MS, RESPONSE_HEADERS } from '@loadfeed/spec';

export interface RateDecision {
  admitted: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Unix epoch seconds, rounded up, when the oldest counted request leaves the window; now when none is counted. */
  resetAt: number;
  /** On a refusal: whole seconds, at least 1, until a request will be admitted. */
  retryAfter?: number;
  /** The database's clock when the request was counted: what the headers are computed from. */
  countedAt: Date;
}

/** What rate_window_admit reports of the key's window: `oldest` and `admits_at` leave the window RATE_WINDOW_MS after them. */
export interface WindowRow {
  admitted: boolean;
  counted: number;
  oldest: Date | null;
  admits_at: Date | null;
}

/** The decision a request counted (or refused) at `now`, the database's clock, gets under `limit`. */
export function decisionOf(row: WindowRow, limit: number, now: Date): RateDecision {
  const nowMs = now.getTime();
  const decision: RateDecision = {
    admitted: row.admitted,
    limit,
    remaining: Math.max(0, limit - row.counted),
    resetAt: Math.ceil((row.oldest ? row.oldest.getTime() + RATE_WINDOW_MS : nowMs) / 1000),
    countedAt: now,
  };
  if (!row.admitted) {
    const admitsAt = (row.admits_at ?? now).getTime() + RATE_WINDOW_MS;
    decision.retryAfter = Math.max(1, Math.ceil((admitsAt - nowMs) / 1000));
  }
  return decision;
}

/** Where headers go: a hapi response, or a record. */
export interface HeaderSink {
  header(name: string, value: string): unknown;
}

/**
 * Puts the headers DECISIONS.md puts on 200, 400 and 429 responses, and the Date they are computed at, on
 * `sink`: on a page's response directly, without a record of them on every request.
 */
export function putRateHeaders(decision: RateDecision, sink: HeaderSink): void {
  sink.header('date', decision.countedAt.toUTCString());
  sink.header(RESPONSE_HEADERS.rateLimitLimit, String(decision.limit));
  sink.header(RESPONSE_HEADERS.rateLimitRemaining, String(decision.remaining));
  sink.header(RESPONSE_HEADERS.rateLimitReset, String(decision.resetAt));
  if (decision.retryAfter !== undefined) sink.header(RESPONSE_HEADERS.retryAfter, String(decision.retryAfter));
}

/** The same headers as a record. */
export function rateHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  putRateHeaders(decision, {
    header(name, value) {
      headers[name] = value;
    },
  });
  return headers;
}
