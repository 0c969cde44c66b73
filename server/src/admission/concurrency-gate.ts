// The concurrency gate: at most as many requests work at the database at once as the pool has
// connections, a bounded queue waits for a turn for a bounded time, and what neither takes gets a 503
// with Retry-After at once. Without it, a burst would queue inside the pool, wait there until the pool's
// connect timeout and end in slow 500s (server/DESIGN.md, "Timeouts, overload and fairness").
//
// Fair between keys (turns.ts): the bearer token is read (and hashed) before the database is asked, so
// requests wait in one queue per key. Requests without a well-formed key share one key. The turn a request
// takes (turn.ts) goes on its admission (request-admission.ts).
import type { Lifecycle } from '@hapi/hapi';
import { hashKey, isWellFormedKey } from './key-format.js';
import { admissionOf } from './request-admission.js';
import { Turn } from './turn.js';
import { Turns, type ConcurrencyGateOptions } from './turns.js';

export type { ConcurrencyGateOptions };

/** The key of requests whose bearer token is missing or malformed: they share one queue. */
const NO_KEY = 'no key';
/** How the scheme reads the header (scheme.ts); the name in any case. */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Whose turn a request takes: the hash of its bearer key (never the key itself), or NO_KEY. */
function fairnessKeyOf(authorization: unknown): string {
  const key = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
  return key !== undefined && isWellFormedKey(key) ? hashKey(key).toString('base64') : NO_KEY;
}

/** The lifecycle methods a route whose handling uses the database takes: onPreAuth and onPreResponse. */
export function concurrencyGate(options: ConcurrencyGateOptions): {
  onPreAuth: Lifecycle.Method;
  onPreResponse: Lifecycle.Method;
} {
  const turns = new Turns(options);

  return {
    async onPreAuth(request, h) {
      const key = fairnessKeyOf(request.headers.authorization);
      const response = request.raw.res;
      await turns.enter(key, (listener) => response.once('close', listener));
      const turn = new Turn(turns, key, response);
      admissionOf(request).turn = turn;
      // A client that leaves before its response may skip onPreResponse; its turn is given back all the
      // same, once its work has ended. 'close' comes once: `on`, not `once` (see Turn).
      response.on('close', turn.closed);
      return h.continue;
    },
    onPreResponse(request, h) {
      request.app.admission?.turn?.answered();
      return h.continue;
    },
  };
}
