// Time as a dependency: the client and the sync read the time and wait only through a Clock, so tests
// and benchmarks run hours of rate-limited traffic in simulated time.
import { AbortError } from './errors.js';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with an AbortError as soon as `signal` aborts, even mid-wait. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(AbortError.from(signal));
      const onAbort = () => {
        clearTimeout(timer);
        reject(AbortError.from(signal!));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
