// Pacing from the rate-limit headers: when the last response said `X-RateLimit-Remaining: 0`, the next
// request waits until `X-RateLimit-Reset`. The reset is an epoch on the SERVER's clock, so it is moved onto
// ours with the clock difference read from `Date` headers. A sync that is its key's only user never sees a 429.
//
// The pacing layer (`withPacing`) holds each attempt until the quota admits it, saying so before it waits,
// and reads every response's headers back into the pacer.
import { integerHeaderValue, RATE_LIMIT_HEADERS, RESPONSE_HEADERS } from '@loadfeed/spec';
import type { Clock } from './clock.js';
import { WaitTooLongError } from './errors.js';
import type { AttemptFetch, WaitEvent } from './transport.js';
import { describeWait } from './wait-limit.js';

const [LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER] = RATE_LIMIT_HEADERS;
/** `Date` has whole-second resolution: the server's time was somewhere in [Date, Date + 1 s). */
const DATE_RESOLUTION_MS = 1000;

export interface QuotaSnapshot {
  /** The key's per-minute cap, from the last response that carried it. */
  limit: number | undefined;
  /** Requests left in the window, counting the ones this client has sent since. */
  remaining: number | undefined;
  /** The earliest time (epoch ms, our clock) the next request may go out. */
  nextRequestAt: number;
  /** Our estimate of (server clock − our clock), in ms; never larger than the true difference. */
  serverClockOffsetMs: number;
}

export interface Pacer {
  /** How many ms from now the next request must wait for the quota (0: it may go now). */
  delay(): number;
  /** Counts a request that goes out now. */
  reserve(): void;
  /** Reads the quota and the server's clock from a response sent at `sentAt` and received at `receivedAt`. */
  observe(headers: Headers, status: number, sentAt: number, receivedAt: number): void;
  snapshot(): QuotaSnapshot;
  /** The server's clock now, as far as we can tell (never ahead of it). */
  serverNow(): number;
  /** The `X-RateLimit-Reset` the current wait comes from, as the server sent it. */
  resetHeader(): string | undefined;
}

const integerHeader = (headers: Headers, name: string) => integerHeaderValue(headers.get(name));

export function createPacer(clock: Clock): Pacer {
  let limit: number | undefined;
  let remaining: number | undefined;
  let resetAt = 0; // our clock
  let resetServerSeconds: number | undefined;
  // The clock difference lies in [low, high): each Date header narrows it. Using `low` errs towards
  // waiting a little long, never towards a 429. A contradiction means a clock was set: start over.
  let low: number | undefined;
  let high: number | undefined;

  const offset = () => low ?? 0;

  return {
    delay() {
      return remaining !== undefined && remaining <= 0 ? Math.max(0, resetAt - clock.now()) : 0;
    },
    reserve() {
      // Once the window has reset (or was never spent), the next response tells how many requests are left.
      remaining = remaining === undefined ? undefined : Math.max(remaining, 1) - 1;
    },
    observe(headers, status, sentAt, receivedAt) {
      const date = headers.get('date');
      const server = date === null ? Number.NaN : Date.parse(date);
      if (!Number.isNaN(server)) {
        const responseLow = server - receivedAt;
        const responseHigh = server + DATE_RESOLUTION_MS - sentAt;
        const nextLow = Math.max(low ?? responseLow, responseLow);
        const nextHigh = Math.min(high ?? responseHigh, responseHigh);
        [low, high] = nextLow < nextHigh ? [nextLow, nextHigh] : [responseLow, responseHigh];
      }
      // A 429's wait is its Retry-After, served by the retry policy; its quota headers add nothing.
      if (status === 429) {
        remaining = undefined;
        return;
      }
      const nextRemaining = integerHeader(headers, REMAINING_HEADER);
      const reset = integerHeader(headers, RESET_HEADER);
      if (nextRemaining === undefined || reset === undefined) return;
      limit = integerHeader(headers, LIMIT_HEADER) ?? limit;
      remaining = nextRemaining;
      resetServerSeconds = reset;
      resetAt = reset * 1000 - offset();
    },
    snapshot() {
      const blocked = remaining !== undefined && remaining <= 0;
      if (resetServerSeconds !== undefined) resetAt = resetServerSeconds * 1000 - offset();
      return {
        limit,
        remaining,
        nextRequestAt: blocked ? Math.max(resetAt, clock.now()) : clock.now(),
        serverClockOffsetMs: offset(),
      };
    },
    serverNow: () => clock.now() + offset(),
    resetHeader: () => (resetServerSeconds === undefined ? undefined : `${RESPONSE_HEADERS.rateLimitReset}: ${resetServerSeconds}`),
  };
}

export interface PacingOptions {
  pacer: Pacer;
  clock: Clock;
  /** The longest wait for the quota; the server asking for a longer one is a WaitTooLongError. */
  maxWaitMs: number;
  /** Before each wait for the quota (the call's own onWait hears it too). */
  onWait?(event: WaitEvent): void;
}

/** Each attempt waits until the quota admits it, then its response's headers update the quota. */
export function withPacing(inner: AttemptFetch, { pacer, clock, maxWaitMs, onWait }: PacingOptions): AttemptFetch {
  return async function pacedAttempt(request, context) {
    const delayMs = pacer.delay();
    if (delayMs > maxWaitMs) {
      // A server that sends milliseconds where the contract says epoch seconds asks for thousands of years.
      const askedBy = pacer.resetHeader() ?? RESPONSE_HEADERS.rateLimitReset;
      throw new WaitTooLongError(
        `the server's rate-limit headers ask to wait ${describeWait(delayMs)} for the next request (${RESPONSE_HEADERS.rateLimitRemaining}: 0, ${askedBy}; the contract says epoch seconds), longer than the client's retry.maxWaitMs (${describeWait(maxWaitMs)})`,
        { requestedMs: delayMs, limitMs: maxWaitMs, askedBy },
      );
    }
    if (delayMs > 0) {
      const { limit } = pacer.snapshot();
      const reason = limit === undefined ? "the key's rate limit is spent" : `the key's ${limit} requests a minute are spent`;
      const event: WaitEvent = { kind: 'quota', delayMs, until: clock.now() + delayMs, reason };
      onWait?.(event);
      context.onWait?.(event);
      await clock.sleep(delayMs, context.signal);
    }
    pacer.reserve();
    const sentAt = clock.now();
    const response = await inner(request, context);
    pacer.observe(response.headers, response.status, sentAt, clock.now());
    return response;
  };
}
