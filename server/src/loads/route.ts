// GET /api/v1/loads (SPEC §4): authenticate (401), count against the key's window (429), validate the
// query (400, counted), then one page of the customer's feed. Any other method gets a 405. A request
// the server cannot take at once gets a 503 before all of these (admission/concurrency-gate.ts).
import Boom from '@hapi/boom';
import type { ServerRoute } from '@hapi/hapi';
import { LIST_LOADS_PATH, SETTLED_THROUGH_HEADER, feedWindowStart } from '@loadfeed/spec';
import { concurrencyGate, type ConcurrencyGateOptions } from '../admission/concurrency-gate.js';
import { admitted } from '../admission/request-admission.js';
import type { Clock } from '../clock.js';
import type { PrimaryBreaker } from '../db/primary-breaker.js';
import type { ReadRouter } from '../db/read-router.js';
import { AUTH_SCHEME } from '../admission/scheme.js';
import type { Metrics } from '../metrics.js';
import { rateLimitStep } from '../admission/rate-limit-step.js';
import { CountCache } from './count-cache.js';
import { PageBoundaries } from './page-boundaries.js';
import { parseListLoadsQuery } from './list-query.js';
import { listLoads } from './list.js';
import { pageStatements } from '../tracing/statements.js';


export interface LoadsRouteOptions {
  clock: Clock;
  maxPageSize: number;
  /** Turns at the database: requests beyond them get a 503 (admission/concurrency-gate.ts). */
  gate: ConcurrencyGateOptions;
  metrics?: Metrics | undefined;
  /** Where pages are read (the primary, or a standby current enough). */
  reads: ReadRouter;
  /** Open while the primary does not answer: the feed then answers SPEC's 500 at once. */
  breaker: PrimaryBreaker;
}

export function loadsRoutes({ clock, maxPageSize, gate, metrics, reads, breaker }: LoadsRouteOptions): ServerRoute[] {
  const counts = new CountCache();
  const boundaries = new PageBoundaries();
  const turns = concurrencyGate(gate);
  return [
    {
      method: 'GET',
      path: LIST_LOADS_PATH,
      options: {
        auth: AUTH_SCHEME,
        // Authentication reads the database too, so the turn is taken before it; while the primary is
        // known to be down, no turn is taken and the answer is SPEC's 500 at once.
        ext: {
          onPreAuth: [{ method: breaker.refuseWhileOpen }, { method: turns.onPreAuth }],
          onPostAuth: { method: rateLimitStep() },
          onPreResponse: { method: turns.onPreResponse },
        },
        async handler(request, h) {
          const filters = parseListLoadsQuery(request.query as Record<string, string | string[]>, maxPageSize);
          const { credentials, settledThrough, feedVersion, atDatabase } = admitted(request);
          const scope = { customerId: credentials.customerId, windowStart: feedWindowStart(clock()), settledThrough };
          metrics?.horizonLagSeconds.observe(Math.max(0, Date.now() - Date.parse(scope.settledThrough)) / 1000);
          // The page arrives as JSON text from PostgreSQL (server/sql/functions/load_json.sql) and goes
          // out as it is; it is read on a standby whose snapshot shows the feed version read after the
          // horizon, else on the primary.
          // A client that leaves has the statement running cancelled; its turn waits for that (admission/turn.ts).
          const page = await atDatabase((disconnected) =>
            reads.read(feedVersion, (db) => listLoads(pageStatements(request, db), counts, scope, filters, boundaries), disconnected),
          );
          // Sent as its UTF-8 bytes, made here once: a page held as text stays on V8's heap as long as
          // hapi's request object holds the response, where young-generation collections copy it; bytes live
          // outside the heap (server/BENCHMARKS.md, "After the cheaper admission, pages sent as bytes").
          return h.response(Buffer.from(page, 'utf8')).type('application/json; charset=utf-8').header(SETTLED_THROUGH_HEADER, scope.settledThrough);
        },
      },
    },
    {
      method: '*',
      path: LIST_LOADS_PATH,
      options: {
        auth: false,
        // The body of a request that gets a 405 is never read, so that no payload error can pre-empt it.
        payload: { output: 'stream', parse: false },
        // The body's text is errors.ts's, the same as the listener's for a CONNECT.
        handler(request) {
          throw Boom.methodNotAllowed(request.method.toUpperCase(), undefined, ['GET']);
        },
      },
    },
  ];
}
