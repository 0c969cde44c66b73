// A clock whose time moves only when something waits on it: hours of rate-limited traffic take
// milliseconds, and a test can hold time still to act while a sync is asleep.
import type { Clock } from '../clock.js';
import { AbortError } from '../errors.js';

export interface SimulatedClock extends Clock {
  /** Moves time forward by `ms`, waking every sleeper whose time has come, in order. */
  advance(ms: number): Promise<void>;
  /** How many sleeps are pending. */
  readonly sleepers: number;
  /** Resolves once at least one sleep is pending (for tests that act during a wait). */
  untilSleeping(): Promise<void>;
}

interface Sleeper {
  wakeAt: number;
  order: number;
  resolve(): void;
}

export interface SimulatedClockOptions {
  /** Epoch ms to start at (default: 2026-01-01T00:00:00.000Z). */
  start?: number;
  /** When true (the default), a sleep jumps time forward to its end as soon as nothing else is running. */
  autoAdvance?: boolean;
}

export function createSimulatedClock(options: SimulatedClockOptions = {}): SimulatedClock {
  let now = options.start ?? Date.UTC(2026, 0, 1);
  const autoAdvance = options.autoAdvance ?? true;
  const sleepers: Sleeper[] = [];
  const watchers: (() => void)[] = [];
  let order = 0;
  let jumpScheduled = false;

  function wakeDue(): void {
    sleepers.sort((a, b) => a.wakeAt - b.wakeAt || a.order - b.order);
    while (sleepers.length > 0 && sleepers[0]!.wakeAt <= now) sleepers.shift()!.resolve();
  }

  function scheduleJump(): void {
    if (!autoAdvance || jumpScheduled) return;
    jumpScheduled = true;
    // setImmediate runs after every pending promise job, so a sleeper is woken only once all other work
    // that could still start a shorter sleep has had its turn.
    setImmediate(() => {
      jumpScheduled = false;
      if (sleepers.length === 0) return;
      now = Math.max(now, Math.min(...sleepers.map((sleeper) => sleeper.wakeAt)));
      wakeDue();
      if (sleepers.length > 0) scheduleJump();
    });
  }

  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(AbortError.from(signal));
        const sleeper: Sleeper = {
          wakeAt: now + Math.max(0, ms),
          order: order++,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          reject(AbortError.from(signal!));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
        watchers.splice(0).forEach((watcher) => watcher());
        scheduleJump();
      });
    },
    async advance(ms) {
      now += ms;
      wakeDue();
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    get sleepers() {
      return sleepers.length;
    },
    untilSleeping() {
      if (sleepers.length > 0) return Promise.resolve();
      return new Promise<void>((resolve) => watchers.push(resolve));
    },
  };
}
