// The timeout layer: an attempt that has not brought its whole response (headers and body) within
// `timeoutMs` on the injected clock is a TimeoutError, and the fetch it started is aborted.
import type { Clock } from './clock.js';
import { TimeoutError } from './errors.js';
import { hostPort } from './host-port.js';
import type { AttemptFetch } from './transport.js';

/** Per attempt, headers and body: ample for a 1,000-row page on a slow link, and a stalled body ends. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface TimeoutOptions {
  clock: Clock;
  timeoutMs: number;
}

export function withTimeout(inner: AttemptFetch, { clock, timeoutMs }: TimeoutOptions): AttemptFetch {
  return async function timedAttempt(request, context) {
    const { signal } = context;
    const attemptAbort = new AbortController();
    const onCallerAbort = () => attemptAbort.abort(signal?.reason);
    if (signal?.aborted) onCallerAbort();
    else signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timerAbort = new AbortController();
    let timeout: TimeoutError | undefined;
    try {
      // Aborting the attempt makes it fail too, and maybe first: either way the failure is the timeout.
      const sent = inner(new Request(request, { signal: attemptAbort.signal }), { ...context, signal: attemptAbort.signal }).catch((error: unknown) => {
        throw timeout ?? error;
      });
      const timedOut = clock.sleep(timeoutMs, timerAbort.signal).then((): never => {
        timeout = new TimeoutError(`no response from ${hostPort(request.url)} within ${timeoutMs} ms`);
        attemptAbort.abort(timeout);
        throw timeout;
      });
      // The loser settles later; neither may become an unhandled rejection.
      sent.catch(() => {});
      timedOut.catch(() => {});
      return await Promise.race([sent, timedOut]);
    } finally {
      timerAbort.abort();
      signal?.removeEventListener('abort', onCallerAbort);
    }
  };
}
