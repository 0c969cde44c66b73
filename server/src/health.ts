// Liveness and readiness for load balancers and orchestrators, without a key: /healthz answers while
// the process runs; /readyz also asks the databases, so that an instance that cannot reach the primary
// is taken out of rotation (503 with the error body) and put back once it can. Its body says which
// databases the instance can use: the primary, and each standby (db/database-check.ts) as `up`, `down` or
// `not_standby` (promoted: no longer read from). A standby that is down makes nobody unready: pages
// then go to another one or to the primary. A feed whose triggers are missing, disabled or not ALWAYS
// (db/settled-feed-check.ts), or a function or trigger that differs from what migrate applied
// (db/definitions-check.ts), makes the instance unready too, with the one-line reason as the error.
import type { ServerRoute } from '@hapi/hapi';
import type { ErrorBody } from '@loadfeed/spec';
import type { DatabaseCheck } from './db/database-check.js';

export function healthRoutes(check: Pick<DatabaseCheck, 'databases'>, feedTriggerProblem: () => Promise<string | undefined> = async () => undefined): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      options: { auth: false, handler: () => ({ status: 'ok' }) },
    },
    {
      method: 'GET',
      path: '/readyz',
      options: {
        auth: false,
        async handler(_request, h) {
          const databases = await check.databases();
          if (databases.primary === 'up') {
            const problem = await feedTriggerProblem();
            if (problem === undefined) return { status: 'ready', databases };
            const body: ErrorBody = { error: problem };
            return h.response(body).code(503);
          }
          const usable = Object.entries(databases.standbys).filter(([, state]) => state === 'up').map(([name]) => name);
          const body: ErrorBody = { error: `The primary database is unreachable${usable.length > 0 ? `; standbys that answer: ${usable.join(', ')}` : ''}` };
          return h.response(body).code(503);
        },
      },
    },
  ];
}
