// GET /api/v1/loads (SPEC §4): authenticate (401), count against the key's window (429), validate the
// query (400, counted), then one page of the customer's feed. Any other method gets a 405.
import Boom from '@hapi/boom';
import type { ServerRoute } from '@hapi/hapi';
import { LIST_LOADS_PATH, type LoadPage } from '@loadfeed/spec';
import type pg from 'pg';
import type { Clock } from '../app.js';
import { AUTH_SCHEME } from '../auth/scheme.js';
import { rateLimitStep } from '../rate-limit/step.js';
import { CountCache } from './count-cache.js';
import { feedWindowStart } from './feed-window.js';
import { parseListLoadsQuery } from './list-query.js';
import { listLoads } from './list.js';

export interface LoadsRouteOptions {
  pool: pg.Pool;
  clock: Clock;
  rateLimitPerMinute: number;
  maxPageSize: number;
}

export function loadsRoutes({ pool, clock, rateLimitPerMinute, maxPageSize }: LoadsRouteOptions): ServerRoute[] {
  const counts = new CountCache();
  return [
    {
      method: 'GET',
      path: LIST_LOADS_PATH,
      options: {
        auth: AUTH_SCHEME,
        ext: { onPostAuth: { method: rateLimitStep({ pool, clock, defaultLimit: rateLimitPerMinute }) } },
        async handler(request): Promise<LoadPage> {
          const filters = parseListLoadsQuery(request.query as Record<string, string | string[]>, maxPageSize);
          const { customerId } = request.auth.credentials.app!;
          return listLoads(pool, counts, customerId, feedWindowStart(clock()), filters);
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
