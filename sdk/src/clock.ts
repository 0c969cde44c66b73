// Time as a dependency: the client and the sync read the time and wait only through a Clock, so tests
// and benchmarks run hours of rate-limited traffic in simulated time.
import { AbortError } from './errors.js';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with an AbortError as soon as `signal` aborts, even mid-wait. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout's largest delay: a longer one overflows and fires at once (a wait of 2^31 ms became 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(AbortError.from(signal));
      const wakeAt = Date.now() + Math.max(0, ms);
      let timer: ReturnType<typeof setTimeout>;
      const onAbort = () => {
        clearTimeout(timer);
        reject(AbortError.from(signal!));
      };
      // A wait longer than one timer allows is a chain of timers, each within the limit.
      const arm = (remaining: number) => {
        timer = setTimeout(() => {
          const left = wakeAt - Date.now();
          if (left > 0 && remaining > MAX_TIMER_MS) return arm(left);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, Math.min(MAX_TIMER_MS, Math.max(0, remaining)));
      };
      arm(Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
