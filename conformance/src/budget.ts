// The request budget: a key may allow 10 requests a minute, so the kit plans its run from
// X-RateLimit-Limit, paces every request from the latest rate headers (only the exhaust check meets a 429),
// and counts what the run spent.
import { integerHeaderValue, RATE_LIMIT_HEADERS, RATE_WINDOW_MS, RATE_WINDOW_SECONDS, RETRY_AFTER_HEADER } from '@loadfeed/spec';
import type { Exchange } from './evidence.js';
import type { KeyLabel } from './options.js';

const [LIMIT, REMAINING, RESET] = RATE_LIMIT_HEADERS;

/** Marks the exchanges of the exhaust check's burst, the only requests meant to meet a 429. */
export const EXHAUST_NOTE = 'exhaust';

/** A margin after the announced reset, so the window has really moved on when the kit sends again. */
const RESET_MARGIN_MS = 250;
/** No wait is ever longer than a rolling window and a second of clock rounding. */
export const LONGEST_WAIT_MS = RATE_WINDOW_MS + 1000;

export function integerHeader(exchange: Exchange, name: string): number | undefined {
  return integerHeaderValue(exchange.headers[name]);
}

export interface RateHeaders {
  limit: number;
  remaining: number;
  /** Unix epoch seconds. */
  reset: number;
}

export function rateHeaders(exchange: Exchange): RateHeaders | undefined {
  const limit = integerHeader(exchange, LIMIT);
  const remaining = integerHeader(exchange, REMAINING);
  const reset = integerHeader(exchange, RESET);
  return limit === undefined || remaining === undefined || reset === undefined ? undefined : { limit, remaining, reset };
}

/**
 * What is wrong with a response's rate headers as a statement about the key's window, or undefined when they
 * make sense: a limit of at least one request, Remaining from 0 to the limit, Reset within the next minute
 * (a second of rounding either side) on the server's clock. The pacing and the plan never rest on nonsense.
 */
export function rateHeaderNonsense(exchange: Exchange): string | undefined {
  const headers = rateHeaders(exchange);
  if (!headers) {
    const shown = [LIMIT, REMAINING, RESET].map((name) => `${name}: ${exchange.headers[name] ?? '(missing)'}`);
    return `not three non-negative integers (${shown.join(', ')})`;
  }
  if (headers.limit < 1) return `${LIMIT}: ${headers.limit} is a limit that admits no request, yet the request got ${exchange.status}`;
  if (headers.remaining > headers.limit) return `${REMAINING}: ${headers.remaining} is more than ${LIMIT}: ${headers.limit}`;
  const ahead = headers.reset - serverTime(exchange) / 1000;
  if (ahead < -1 || ahead > RATE_WINDOW_SECONDS + 1) {
    return `${RESET}: ${headers.reset} is ${Math.round(ahead)} s from the response's time, not within the next ${RATE_WINDOW_SECONDS} s`;
  }
  return undefined;
}

/** The rate headers when they make sense, for the pacing and the plan. */
export function saneRateHeaders(exchange: Exchange): RateHeaders | undefined {
  return rateHeaderNonsense(exchange) === undefined ? rateHeaders(exchange) : undefined;
}

/** The server's clock when it answered, in ms: its Date header, else ours when the answer came. */
export function serverTime(exchange: Exchange): number {
  const date = exchange.headers.date === undefined ? Number.NaN : Date.parse(exchange.headers.date);
  return Number.isNaN(date) ? exchange.receivedAt : date;
}

export function retryAfterSeconds(exchange: Exchange): number | undefined {
  return integerHeader(exchange, RETRY_AFTER_HEADER);
}

/** How long to wait before the next request with `key` so that it is admitted, from the latest rate headers. */
export function waitBeforeSending(exchanges: readonly Exchange[], key: KeyLabel, now: number): number {
  const own = exchanges.filter((exchange) => exchange.credential === key);
  // Headers that make no sense (a limit of 0, a Reset an hour away) are no basis for waiting: the 429 handling covers them.
  const lastIndex = own.findLastIndex((exchange) => saneRateHeaders(exchange) !== undefined);
  if (lastIndex === -1) return 0;
  const last = own[lastIndex]!;
  const headers = saneRateHeaders(last)!;
  // A request since then that came back without rate headers may still have counted.
  const unaccounted = own.length - 1 - lastIndex;
  if (headers.remaining - unaccounted >= 1) return 0;
  const untilReset = headers.reset * 1000 - serverTime(last) - (now - last.receivedAt) + RESET_MARGIN_MS;
  return Math.min(Math.max(0, untilReset), LONGEST_WAIT_MS);
}

/** Requests each group of checks sends, apart from the pagination walk; policy as data, read by the plan. */
const PLANNED_REQUESTS: readonly { group: string; counted: number; uncounted: number; needs?: 'second' | 'revoked' | 'exhaust' }[] = [
  { group: 'preflight (the largest page: the sample most checks read)', counted: 1, uncounted: 0 },
  { group: 'contract', counted: 0, uncounted: 1 },
  { group: 'authentication', counted: 1, uncounted: 7 },
  { group: 'authentication (revoked key)', counted: 0, uncounted: 1, needs: 'revoked' },
  { group: 'pagination (defaults, page re-fetched, page past the end)', counted: 3, uncounted: 0 },
  { group: 'filters', counted: 12, uncounted: 0 },
  { group: 'delta', counted: 3, uncounted: 0 },
  { group: 'window', counted: 1, uncounted: 0 },
  { group: 'errors (the 404 and 405 included)', counted: 10, uncounted: 0 },
  { group: 'isolation', counted: 0, uncounted: 3, needs: 'second' },
  { group: 'rate limit (the request after Retry-After)', counted: 1, uncounted: 0, needs: 'exhaust' },
];

/** The walk's pages and the page past its end; with more rows than a page, the tail and a probe for a narrow scope. */
const WALK_REQUESTS = 4;
const LARGE_FEED_REQUESTS = 2;
const LARGE_FEED_ROWS = 100;

export interface PlanInput {
  limit: number;
  remaining: number;
  totalCount: number;
  exhaust: boolean;
  secondKey: boolean;
  revokedKey: boolean;
}

export interface Plan {
  requests: number;
  /** Requests that count against the key under test, the exhaust check's burst included. */
  counted: number;
  minutes: number;
  limit: number;
}

/** `limit` must be at least 1: global-setup plans with SPEC §8's default when the deployment's makes no sense. */
export function planRun(input: PlanInput): Plan {
  if (!(input.limit >= 1)) throw new RangeError(`planRun: a limit of ${input.limit} requests a minute`);
  const present = PLANNED_REQUESTS.filter(
    (row) =>
      row.needs === undefined ||
      (row.needs === 'second' && input.secondKey) ||
      (row.needs === 'revoked' && input.revokedKey) ||
      (row.needs === 'exhaust' && input.exhaust),
  );
  const walkPages = input.totalCount < 2 ? 0 : WALK_REQUESTS + (input.totalCount > LARGE_FEED_ROWS ? LARGE_FEED_REQUESTS : 0);
  const exhaustBurst = input.exhaust ? input.limit + 1 : 0;
  const counted = present.reduce((sum, row) => sum + row.counted, 0) + walkPages + exhaustBurst;
  const uncounted = present.reduce((sum, row) => sum + row.uncounted, 0);
  // Waits come from the requests beyond what the window still allows, plus one Retry-After after the burst.
  const paced = Math.max(0, counted - exhaustBurst - input.remaining);
  const minutes = Math.ceil(paced / input.limit) + (input.exhaust ? 1 : 0);
  return { requests: counted + uncounted, counted, minutes, limit: input.limit };
}

export function describePlan(plan: Plan): string {
  // No wait for the window: the run takes as long as its requests do, well under a minute.
  const time = plan.minutes === 0 ? 'no wait for the rate limit' : `~${plan.minutes} minute${plan.minutes === 1 ? '' : 's'}`;
  return `~${plan.requests} requests, ${time} at ${plan.limit}/min`;
}

export interface Spending {
  requests: number;
  byCredential: Record<string, number>;
  byStatus: Record<string, number>;
  /** 429s the pacing met outside the exhaust check; the kit's promise is that there are none. */
  unexpected429: number;
  /** Requests the exhaust check sent to drive the key into its 429: at most the key's limit and one. */
  exhaustBurst: number;
}

export function spending(exchanges: readonly Exchange[]): Spending {
  const byCredential: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  for (const exchange of exchanges) {
    byCredential[exchange.credential] = (byCredential[exchange.credential] ?? 0) + 1;
    byStatus[exchange.status] = (byStatus[exchange.status] ?? 0) + 1;
  }
  return {
    requests: exchanges.length,
    byCredential,
    byStatus,
    unexpected429: exchanges.filter((exchange) => exchange.status === 429 && exchange.note !== EXHAUST_NOTE).length,
    exhaustBurst: exchanges.filter((exchange) => exchange.note === EXHAUST_NOTE).length,
  };
}
