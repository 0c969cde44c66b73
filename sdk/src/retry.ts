// The retry policy, as data: which outcomes retry and how long each waits. It runs BENEATH openapi-fetch
// (inside the fetch the client hands it), so a middleware sees one logical request however many
// attempts it took.
import type { Clock } from './clock.js';
import { AbortError, ConnectionError, TimeoutError, retryAfterSeconds } from './errors.js';
import type { Pacer } from './pacing.js';

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
  /** Attempts in all for 429s. Each waits exactly Retry-After, however long; a deadline stops it sooner. */
  rateLimitMaxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  rateLimitMaxAttempts: 10,
};

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
  /** A wait for the rate limit before a request (pacing), not a retry. */
  onWait?(event: { delayMs: number; until: number }): void;
}

export interface RetryingFetchOptions {
  fetch: (request: Request) => Promise<Response>;
  clock: Clock;
  pacer: Pacer;
  policy: RetryPolicy;
  random: () => number;
  timeoutMs: number | undefined;
  events: AttemptEvents;
  /** Called once per HTTP attempt and with every ms waited for quota, for the client's counters. */
  count(kind: 'request' | 'quota-wait', amount: number): void;
}

export interface CallLimits {
  signal?: AbortSignal;
  /** Epoch ms (our clock) after which the caller would rather have an error than a wait. */
  deadline?: number;
}

/** A fetch that paces, retries per the policy, and returns the last response when retrying stops. */
export function createRetryingFetch(options: RetryingFetchOptions) {
  const { clock, pacer, policy, events } = options;

  async function attemptOnce(request: Request, signal: AbortSignal | undefined): Promise<Outcome> {
    try {
      if (options.timeoutMs === undefined) return { response: await options.fetch(request) };
      return await attemptWithTimeout(request, signal, options.timeoutMs);
    } catch (error) {
      if (signal?.aborted) throw AbortError.from(signal);
      return { failure: new ConnectionError(`the request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }) };
    }
  }

  /** One attempt that gives up after `timeoutMs` on the injected clock, aborting the fetch it started. */
  async function attemptWithTimeout(request: Request, signal: AbortSignal | undefined, timeoutMs: number): Promise<Outcome> {
    const attemptAbort = new AbortController();
    const onCallerAbort = () => attemptAbort.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timerAbort = new AbortController();
    try {
      const sent = options.fetch(new Request(request, { signal: attemptAbort.signal })).then((response): Outcome => ({ response }));
      const timedOut = clock.sleep(timeoutMs, timerAbort.signal).then((): Outcome => {
        attemptAbort.abort();
        return { failure: new TimeoutError(`no response within ${timeoutMs} ms`) };
      });
      return await Promise.race([sent, timedOut]);
    } finally {
      timerAbort.abort();
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  return async function retryingFetch(request: Request, limits: CallLimits = {}): Promise<Response> {
    const signal = limits.signal;
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw AbortError.from(signal);
      const reserved = pacer.acquire(signal);
      const quotaWait = typeof reserved === 'number' ? reserved : await reserved;
      if (quotaWait > 0) {
        options.count('quota-wait', quotaWait);
        events.onWait?.({ delayMs: quotaWait, until: clock.now() });
      }
      if (events.onRequest) events.onRequest({ method: request.method, url: request.url, attempt });
      options.count('request', 1);
      const sentAt = clock.now();
      const outcome = await attemptOnce(request, signal);
      const receivedAt = clock.now();
      if ('response' in outcome) {
        const { response } = outcome;
        pacer.observe(response.headers, response.status, sentAt, receivedAt);
        if (events.onResponse) events.onResponse({
          method: request.method,
          url: request.url,
          attempt,
          status: response.status,
          requestId: response.headers.get('x-request-id') ?? undefined,
          durationMs: receivedAt - sentAt,
        });
      }
      const delayMs = retryDelay(outcome, attempt, limits.deadline);
      if (delayMs === undefined) {
        if ('failure' in outcome) throw outcome.failure;
        return outcome.response;
      }
      const reason = 'failure' in outcome ? outcome.failure.message : `status ${outcome.response.status}`;
      events.onRetry?.({ attempt, reason, delayMs });
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
      delay = seconds === undefined ? backoffDelay(policy, attempt, options.random) : seconds * 1000;
    } else {
      if (attempt >= policy.maxAttempts) return undefined;
      delay = backoffDelay(policy, attempt, options.random);
    }
    if (deadline !== undefined && clock.now() + delay > deadline) return undefined;
    return delay;
  }
}

export type RetryingFetch = ReturnType<typeof createRetryingFetch>;
