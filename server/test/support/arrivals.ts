// Waits on the server's own events instead of on time: a request reaching its turn at the database (or
// the queue for one), and a response finishing with a given status.
import type { Server } from '@hapi/hapi';

/**
 * Counts the requests `server` takes from now on; `arrived(n)` resolves once the n-th holds a turn or
 * waits in the queue. From hapi's onRequest to the route's admission (its onPreAuth) a request takes
 * promise steps only, no I/O, so one macrotask after its onRequest it is at its turn or in the queue.
 */
export function arrivals(server: Server): (count: number) => Promise<void> {
  let taken = 0;
  let waiters: { count: number; resolve: () => void }[] = [];
  server.ext('onRequest', (_request, h) => {
    taken += 1;
    for (const waiter of waiters.filter(({ count }) => taken >= count)) setImmediate(waiter.resolve);
    waiters = waiters.filter(({ count }) => taken < count);
    return h.continue;
  });
  return (count) => (taken >= count ? new Promise((resolve) => setImmediate(resolve)) : new Promise((resolve) => waiters.push({ count, resolve: () => resolve() })));
}

/** Resolves with the next response `server` finishes with `status` (hapi's 'response' event). */
export function nextResponse(server: Server, status: number): Promise<void> {
  return new Promise((resolve) => {
    const listener = (request: { response: unknown }) => {
      const response = request.response as { statusCode?: number; output?: { statusCode: number } } | null;
      if ((response?.statusCode ?? response?.output?.statusCode) !== status) return;
      server.events.removeListener('response', listener);
      resolve();
    };
    server.events.on('response', listener);
  });
}
