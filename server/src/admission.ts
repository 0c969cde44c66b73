// Admission to the database: at most as many requests work at the database at once as the pool has
// connections, a bounded queue waits for a turn for a bounded time, and what neither takes gets a 503
// with Retry-After at once. Without it, a burst queued inside the pool, waited there until the pool's
// connect timeout and ended in slow 500s (2,000 requests at once: 192 of them after ~8 s).
import Boom from '@hapi/boom';
import type { Lifecycle, Request } from '@hapi/hapi';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** Set while the request holds a turn at the database; calling it gives the turn back. */
    leaveDatabase?: () => void;
  }
}

export interface AdmissionOptions {
  /** Requests at the database at once: the pool's size, so that none waits inside the pool. */
  concurrency: number;
  /** Requests that may wait for a turn; one more gets a 503 at once. */
  maxQueued: number;
  /** How long one may wait before it gets a 503. */
  maxWaitMs: number;
}

/** Whole seconds a refused client is told to wait: a turn frees within milliseconds, so the least. */
const BUSY_RETRY_AFTER_SECONDS = 1;

interface Waiter {
  admit(): void;
}

/** The 503 a request gets when the server cannot take it now; `reason` goes to the log, not the client. */
function busy(reason: string): Boom.Boom {
  return Boom.serverUnavailable('busy', { retryAfter: BUSY_RETRY_AFTER_SECONDS, reason });
}

/** The lifecycle methods a route whose handling uses the database takes: onPreAuth and onPreResponse. */
export function databaseAdmission({ concurrency, maxQueued, maxWaitMs }: AdmissionOptions): {
  onPreAuth: Lifecycle.Method;
  onPreResponse: Lifecycle.Method;
} {
  let active = 0;
  const queue: Waiter[] = [];

  const leave = (): void => {
    active -= 1;
    const next = queue.shift();
    if (next) {
      active += 1;
      next.admit();
    }
  };

  /** Resolves with a turn; rejects with a 503 (no room, or no turn in time), or a 408 when `gone` fires first (the client left while waiting). */
  const enter = (gone: (listener: () => void) => void): Promise<void> => {
    if (active < concurrency) {
      active += 1;
      return Promise.resolve();
    }
    if (queue.length >= maxQueued) return Promise.reject(busy(`overloaded: ${active} requests at the database and ${queue.length} waiting`));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit() {
          clearTimeout(timer);
          resolve();
        },
      };
      const leaveQueue = (error: Error) => {
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        clearTimeout(timer);
        reject(error);
      };
      const timer = setTimeout(() => leaveQueue(busy(`overloaded: no turn at the database within ${maxWaitMs} ms`)), maxWaitMs);
      // A client that gave up does not take a turn from one still waiting.
      gone(() => leaveQueue(Boom.clientTimeout('the client closed the connection while waiting')));
      queue.push(waiter);
    });
  };

  const release = (request: Request): void => {
    const leaveDatabase = request.app.leaveDatabase;
    request.app.leaveDatabase = undefined;
    leaveDatabase?.();
  };

  return {
    async onPreAuth(request, h) {
      await enter((listener) => request.raw.res.once('close', listener));
      let left = false;
      request.app.leaveDatabase = () => {
        if (!left) {
          left = true;
          leave();
        }
      };
      // A request whose client went away may skip onPreResponse; its turn is given back all the same.
      request.raw.res.once('close', () => release(request));
      return h.continue;
    },
    onPreResponse(request, h) {
      release(request);
      return h.continue;
    },
  };
}
