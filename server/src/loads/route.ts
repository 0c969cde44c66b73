// GET /api/v1/loads (SPEC §4): authenticate (401), count against the key's window (429), validate the
// query (400, counted), then one page of the customer's feed. Any other method gets a 405. A request
// the server cannot take at once gets a 503 before all of these (admission.ts).
import Boom from '@hapi/boom';
import type { ServerRoute } from '@hapi/hapi';
import { LIST_LOADS_PATH, SETTLED_THROUGH_HEADER, feedWindowStart } from '@loadfeed/spec';
import type pg from 'pg';
import { databaseAdmission, type AdmissionOptions } from '../admission.js';
import type { Clock } from '../clock.js';
import { ReadRouter } from '../db/routing.js';
import { AUTH_SCHEME } from '../auth/scheme.js';
import type { Metrics } from '../metrics/metrics.js';
import { rateLimitStep } from '../rate-limit/step.js';
import { CountCache } from './count-cache.js';
import { parseListLoadsQuery } from './list-query.js';
import { listLoads } from './list.js';


export interface LoadsRouteOptions {
  pool: pg.Pool;
  clock: Clock;
  maxPageSize: number;
  /** Turns at the database: requests beyond them get a 503 (admission.ts). */
  admission: AdmissionOptions;
  metrics?: Metrics | undefined;
  /** Where pages are read (the primary, or a standby current enough); default: the primary. */
  reads?: ReadRouter | undefined;
}

export function loadsRoutes({ pool, clock, maxPageSize, admission, metrics, reads = new ReadRouter(pool, [], { metrics }) }: LoadsRouteOptions): ServerRoute[] {
  const counts = new CountCache();
  const turns = databaseAdmission(admission);
  return [
    {
      method: 'GET',
      path: LIST_LOADS_PATH,
      options: {
        auth: AUTH_SCHEME,
        // Authentication reads the database too, so the turn is taken before it.
        ext: {
          onPreAuth: { method: turns.onPreAuth },
          onPostAuth: { method: rateLimitStep() },
          onPreResponse: { method: turns.onPreResponse },
        },
        async handler(request, h) {
          const filters = parseListLoadsQuery(request.query as Record<string, string | string[]>, maxPageSize);
          const { customerId } = request.auth.credentials.app!;
          const scope = { customerId, windowStart: feedWindowStart(clock()), settledThrough: request.app.settledThrough! };
          metrics?.horizonLagSeconds.observe(Math.max(0, Date.now() - Date.parse(scope.settledThrough)) / 1000);
          // The page arrives as JSON text from PostgreSQL (load_json, migration 0015) and goes
          // out as it is; it is read on a standby whose snapshot shows the feed version read after the
          // horizon, else on the primary.
          // A client that leaves has the statement running cancelled; its turn waits for that (admission.ts).
          const page = await request.app.atDatabase!((disconnected) =>
            reads.read(request.app.feedVersion!, (db) => listLoads(db, counts, scope, filters), disconnected),
          );
          // Sent as its UTF-8 bytes, made here once: a page held as text (70 KB at 100 loads) stays on V8's
          // heap as long as hapi's request object holds the response, and young-generation collections copied
          // it; bytes live outside the heap. Page 1 of 100 under load: 108 scavenges against 158 for the same
          // run, and 30% less collection time (server/README.md, "This release: the peer's targets").
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
        handler() {
          throw Boom.methodNotAllowed('Method not allowed; this path answers GET only', undefined, ['GET']);
        },
      },
    },
  ];
}
