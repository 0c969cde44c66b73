// The client-side deadline of each query (pool.ts says why there is one), kept by the pool's own client
// class instead of pg's `query_timeout`. Both answer a query that passes it with pg's "Query read timeout"
// error and leave the connection to be destroyed by whoever borrowed it; they differ in what their timer
// holds. pg's timer closes over the query, and with it the rows it returned: V8 keeps timers in its old
// generation, and a timer that has been cleared still reaches the query until a full collection, so every
// page read under load would be copied out of the young generation and then collected by a mark-compact
// (server/BENCHMARKS.md, "No garbage for full collections"). The timer here
// holds a slot that is emptied as soon as the query settles.
import pg from 'pg';

type Callback = (error: Error | null, result?: unknown) => void;

/** What a query's timer holds: the caller's callback until the query settles, then nothing. */
interface Slot {
  settle: Callback | undefined;
}

function expire(slot: Slot): void {
  const settle = slot.settle;
  slot.settle = undefined;
  settle?.(new Error('Query read timeout'));
}

/** Arms a deadline for one query; returns the callback to give pg, which disarms it. */
function withDeadline(callback: Callback, deadlineMs: number): Callback {
  const slot: Slot = { settle: callback };
  const timer = setTimeout(expire, deadlineMs, slot);
  return (error, result) => {
    clearTimeout(timer);
    const settle = slot.settle;
    slot.settle = undefined;
    settle?.(error, result);
  };
}

/**
 * A pg client class whose queries each end by `deadlineMs`. Queries that carry their own `query_timeout`
 * (a build that may run for minutes) and submittables (COPY) keep pg's own deadline.
 */
export function clientWithDeadline(deadlineMs: number): typeof pg.Client {
  return class ClientWithDeadline extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // pg's per-query timer stays off for queries without a deadline of their own: this class keeps it.
      (this as unknown as { connectionParameters: { query_timeout?: number } }).connectionParameters.query_timeout = undefined;
    }

    // pg's overloads: (text or config, values?, callback?), or a submittable; a promise without a callback.
    override query(...args: unknown[]): never {
      const [config, second, third] = args as [unknown, unknown, unknown];
      const call = (...forwarded: unknown[]): never => (super.query as (...a: unknown[]) => never)(...forwarded);
      if (typeof config === 'object' && config !== null) {
        const own = config as { submit?: unknown; query_timeout?: number };
        if (typeof own.submit === 'function') {
          own.query_timeout ??= deadlineMs;
          return call(...args);
        }
        if (own.query_timeout) return call(...args);
      }
      if (typeof second === 'function') return call(config, withDeadline(second as Callback, deadlineMs));
      if (typeof third === 'function') return call(config, second, withDeadline(third as Callback, deadlineMs));
      // The promise form stays pg's own (its rejections carry the caller's stack); the deadline settles first if it passes.
      return new Promise((resolve, reject) => {
        const settle = withDeadline((error, result) => (error ? reject(error) : resolve(result)), deadlineMs);
        (call(...args) as Promise<unknown>).then(
          (result) => settle(null, result),
          (error: Error) => settle(error),
        );
      }) as never;
    }
  };
}
