// Liveness and readiness for load balancers and orchestrators, without a key: /healthz answers while
// the process runs; /readyz also asks the database, so that an instance that cannot reach it is taken
// out of rotation (503 with the error body) and put back once it can.
import type { ServerRoute } from '@hapi/hapi';
import type { ErrorBody } from '@loadfeed/spec';
import type pg from 'pg';

/** How long readiness waits for the database before calling it unreachable. */
const READINESS_TIMEOUT_MS = 2_000;

async function databaseAnswers(pool: pg.Pool): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  const probe = pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(pool: pg.Pool): ServerRoute[] {
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
          if (await databaseAnswers(pool)) return { status: 'ready' };
          const body: ErrorBody = { error: 'The database is unreachable' };
          return h.response(body).code(503);
        },
      },
    },
  ];
}
