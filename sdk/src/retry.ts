// The retry policy, as data: which outcomes retry and how long each waits; and the retry layer that keeps
// it. It runs BENEATH openapi-fetch (inside the fetch the client hands it), so a middleware sees one
// logical request however many attempts it took. An attempt is the whole response, body included
// (transport.ts), so a body cut short is retried like any other connection failure.
import type { Clock } from './clock.js';
import { AbortError, ConnectionError, TimeoutError, WaitTooLongError, retryAfterSeconds } from './errors.js';
import { describeWait } from './wait-limit.js';
import { must, type Schema } from './options.js';
import type { AttemptFetch, CallLimits, WaitEvent } from './transport.js';

/** How an outcome is retried: after exactly `Retry-After`, after a jittered backoff, or never. */
export type RetryWait = 'retry-after' | 'backoff' | 'never';

/** Outcomes and what they do. A status not listed here is never retried (400 and 401 above all). */
export const RETRY_RULES = {
  429: 'retry-after',
  '5xx': 'backoff',
  connection: 'backoff',
  timeout: 'backoff',
} as const satisfies Record<string, RetryWait>;

export interface RetryPolicy {
  /** Attempts in all for a 5xx, a connection failure or a timeout (the first one included). */
  maxAttempts: number;
  /** Backoff before retry n is uniform in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))) ("full jitter"). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts in all for 429s. Each waits exactly Retry-After; a deadline stops it sooner. */
  rateLimitMaxAttempts: number;
  /**
   * The longest wait the server may ask for (`Retry-After`, or the `X-RateLimit-Reset` pacing waits for).
   * A longer one is a WaitTooLongError that says what the server asked for, not a wait.
   */
  maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  rateLimitMaxAttempts: 10,
  // The rate window is a minute; an hour is far beyond any honest ask, and short of a scheduled sync's period.
  maxWaitMs: 3_600_000,
};

/** What each field of `retry` must be (createClient checks it once). */
export const RETRY_POLICY_SCHEMA = {
  maxAttempts: must.integer(1),
  baseDelayMs: must.milliseconds(0),
  maxDelayMs: must.milliseconds(0),
  rateLimitMaxAttempts: must.integer(1),
  maxWaitMs: must.milliseconds(0),
} as const satisfies Record<keyof RetryPolicy, unknown> & Schema;

export type Outcome = { response: Response } | { failure: ConnectionError | TimeoutError };

function ruleFor(outcome: Outcome): RetryWait {
  if ('failure' in outcome) return outcome.failure instanceof TimeoutError ? RETRY_RULES.timeout : RETRY_RULES.connection;
  const { status } = outcome.response;
  if (status === 429) return RETRY_RULES[429];
  if (status >= 500 && status <= 599) return RETRY_RULES['5xx'];
  return 'never';
}

/** Full jitter: a uniform delay below the capped exponential step, so that retrying clients spread out. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

export interface AttemptEvents {
  onRequest?(event: { method: string; url: string; attempt: number }): void;
  onResponse?(event: { method: string; url: string; attempt: number; status: number; requestId: string | undefined; durationMs: number }): void;
  onRetry?(event: { attempt: number; reason: string; delayMs: number }): void;
  /** Before a wait for the rate limit ahead of a request (pacing, not a retry). */
  onWait?(event: { delayMs: number; until: number }): void;
}

export interface RetryOptions {
  policy: RetryPolicy;
  clock: Clock;
  /** The source of backoff jitter, in [0, 1). */
  random: () => number;
  /** Before each wait for a retry (the call's own onWait hears it too). */
  onRetry?(event: { attempt: number; reason: string; delayMs: number }): void;
}

/** A logical request: attempts through `inner` while the policy says to retry; gives the last response, or throws the last failure. */
export function withRetries(inner: AttemptFetch, { policy, clock, random, onRetry }: RetryOptions) {
  return async function retryingFetch(request: Request, limits: CallLimits = {}): Promise<Response> {
    const { signal } = limits;
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw AbortError.from(signal);
      let outcome: Outcome;
      try {
        outcome = { response: await inner(request, { ...limits, attempt }) };
      } catch (error) {
        if (!(error instanceof ConnectionError || error instanceof TimeoutError)) throw error;
        outcome = { failure: error };
      }
      const delayMs = retryDelay(outcome, attempt, limits.deadline);
      if (delayMs === undefined) {
        if ('failure' in outcome) throw outcome.failure;
        return outcome.response;
      }
      const reason = 'failure' in outcome ? outcome.failure.message : `status ${outcome.response.status}`;
      onRetry?.({ attempt, reason, delayMs });
      const event: WaitEvent = { kind: 'retry', delayMs, until: clock.now() + delayMs, reason };
      limits.onWait?.(event);
      if ('response' in outcome) await outcome.response.body?.cancel();
      await clock.sleep(delayMs, signal);
    }
  };

  /** How long to wait before the next attempt, or undefined to stop and hand back this outcome. */
  function retryDelay(outcome: Outcome, attempt: number, deadline: number | undefined): number | undefined {
    const rule = ruleFor(outcome);
    if (rule === 'never') return undefined;
    let delay: number;
    if (rule === 'retry-after' && 'response' in outcome) {
      if (attempt >= policy.rateLimitMaxAttempts) return undefined;
      const seconds = retryAfterSeconds(outcome.response.headers);
      delay = seconds === undefined ? backoffDelay(policy, attempt, random) : seconds * 1000;
      if (seconds !== undefined && delay > policy.maxWaitMs) {
        const { headers, status } = outcome.response;
        const askedBy = `Retry-After: ${headers.get('retry-after')!.trim()}`;
        throw new WaitTooLongError(
          `the server answered ${status} and asked to wait ${describeWait(delay)} before a retry (${askedBy}), longer than the client's retry.maxWaitMs (${describeWait(policy.maxWaitMs)})`,
          { requestedMs: delay, limitMs: policy.maxWaitMs, askedBy },
          { status, headers },
        );
      }
    } else {
      if (attempt >= policy.maxAttempts) return undefined;
      delay = backoffDelay(policy, attempt, random);
    }
    if (deadline !== undefined && clock.now() + delay > deadline) return undefined;
    return delay;
  }
}

export type RetryingFetch = ReturnType<typeof withRetries>;
