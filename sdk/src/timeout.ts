// The timeout layer: an attempt that has not brought its whole response (headers and body) within
// `timeoutMs` on the injected clock is a TimeoutError, and the fetch it started is aborted.
import { MAX_TIMER_MS, systemClock, type Clock } from './clock.js';
import { TimeoutError } from './errors.js';
import { hostPort } from './host-port.js';
import type { AttemptFetch } from './transport.js';

/** Per attempt, headers and body: ample for a 1,000-row page on a slow link, and a stalled body ends. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface TimeoutOptions {
  clock: Clock;
  timeoutMs: number;
}

/** Starts a timer that calls `fire` after `ms`; gives back what cancels it. */
type StartTimer = (ms: number, fire: () => void) => () => void;

function sleepTimer(clock: Clock): StartTimer {
  return (ms, fire) => {
    const stop = new AbortController();
    clock.sleep(ms, stop.signal).then(fire, () => {});
    return () => stop.abort();
  };
}

// On the system clock the timer is setTimeout itself: a sleep cancelled through an AbortSignal costs
// several times as much, and this runs on every attempt of every page.
const systemTimer: StartTimer = (ms, fire) => {
  if (ms > MAX_TIMER_MS) return sleepTimer(systemClock)(ms, fire);
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

export function withTimeout(inner: AttemptFetch, { clock, timeoutMs }: TimeoutOptions): AttemptFetch {
  const startTimer = clock === systemClock ? systemTimer : sleepTimer(clock);
  return async function timedAttempt(request, context) {
    const { signal } = context;
    const attemptAbort = new AbortController();
    const onCallerAbort = () => attemptAbort.abort(signal?.reason);
    if (signal?.aborted) onCallerAbort();
    else signal?.addEventListener('abort', onCallerAbort, { once: true });
    let timeout: TimeoutError | undefined;
    let timeUp!: (error: TimeoutError) => void;
    const timedOut = new Promise<never>((_, reject) => (timeUp = reject));
    const cancelTimer = startTimer(timeoutMs, () => {
      timeout = new TimeoutError(`no response from ${hostPort(request.url)} within ${timeoutMs} ms`);
      attemptAbort.abort(timeout);
      timeUp(timeout);
    });
    try {
      // Aborting the attempt makes it fail too, and maybe first: either way the failure is the timeout.
      const sent = inner(new Request(request, { signal: attemptAbort.signal }), { ...context, signal: attemptAbort.signal }).catch((error: unknown) => {
        throw timeout ?? error;
      });
      // The loser settles later; neither may become an unhandled rejection.
      sent.catch(() => {});
      timedOut.catch(() => {});
      return await Promise.race([sent, timedOut]);
    } finally {
      cancelTimer();
      signal?.removeEventListener('abort', onCallerAbort);
    }
  };
}
