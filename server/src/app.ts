// createServer: the hapi server of the Customer Data API, configured and routed but not listening, so
// that tests drive it with server.inject() and the CLI's `start` decides when to listen. Dependencies
// (pool, clock, logger) are arguments: the seam for tests, and one pool per process.
import { randomUUID } from 'node:crypto';
import Boom from '@hapi/boom';
import Hapi from '@hapi/hapi';
import type pg from 'pg';
import type { Logger } from 'pino';
import { registerAuthScheme } from './auth/scheme.js';
import type { Config } from './config.js';
import { keepFeedIndexCurrent } from './db/feed-index.js';
import { apiReferenceRoutes } from './docs/routes.js';
import { errorResponse } from './errors.js';
import { healthRoutes } from './health/routes.js';
import { loadsRoutes } from './loads/route.js';
import { bindCustomer, registerRequestLogging } from './logging.js';
import { answerMalformedRequests } from './malformed-requests.js';
import { openApiRoute } from './openapi/route.js';
import { rateHeadersOf } from './rate-limit/step.js';

/** The time now; injected so that tests can move it (the rate window, the feed window). */
export type Clock = () => Date;

export interface ServerDeps {
  pool: pg.Pool;
  logger: Logger;
  clock?: Clock;
}

/** How often a listening server checks whether the feed index is due for its monthly renewal. */
const FEED_INDEX_CHECK_MS = 6 * 60 * 60 * 1000;

export async function createServer(config: Config, { pool, logger, clock = () => new Date() }: ServerDeps): Promise<Hapi.Server> {
  const server = Hapi.server({
    port: config.port,
    host: config.host,
  });

  server.ext('onRequest', (request, h) => {
    request.app.requestId = randomUUID();
    return h.continue;
  });
  await registerRequestLogging(server, logger);
  answerMalformedRequests(server, logger);
  registerAuthScheme(server, { pool, clock });
  server.ext('onCredentials', (request, h) => {
    const credentials = request.auth.credentials?.app;
    if (credentials) bindCustomer(request, credentials.customerCode);
    return h.continue;
  });

  server.route([
    ...loadsRoutes({ pool, clock, rateLimitPerMinute: config.rateLimitPerMinute, maxPageSize: config.maxPageSize }),
    openApiRoute(),
    ...apiReferenceRoutes(),
    ...healthRoutes(pool),
  ]);

  // Last stop of every response: an error becomes SPEC's error body (errors.ts); every response gets
  // its request id, and a counted or refused request its rate headers.
  server.ext('onPreResponse', (request, h) => {
    const { response } = request;
    const headers = { ...rateHeadersOf(request), 'X-Request-Id': request.app.requestId ?? randomUUID() };
    if (!Boom.isBoom(response)) {
      for (const [name, value] of Object.entries(headers)) response.header(name, value);
      return h.continue;
    }
    const error = errorResponse(response);
    const reply = h.response(error.body).code(error.status);
    for (const [name, value] of Object.entries({ ...error.headers, ...headers })) reply.header(name, value);
    return reply;
  });

  keepFeedIndexFresh(server, pool, clock, logger);
  return server;
}

/** While the server listens, renews the feed index when the window has moved on (src/db/feed-index.ts). */
function keepFeedIndexFresh(server: Hapi.Server, pool: pg.Pool, clock: Clock, logger: Logger): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopping = new AbortController();
  const check = () => {
    running = keepFeedIndexCurrent(pool, clock(), { signal: stopping.signal }).then(
      ({ current, rebuilt }) => rebuilt && logger.info({ index: current }, 'feed index renewed'),
      (error: unknown) =>
        stopping.signal.aborted || logger.warn({ err: error }, 'feed index upkeep failed; the next check retries'),
    );
  };
  server.ext('onPostStart', () => {
    stopping = new AbortController();
    check();
    timer = setInterval(check, FEED_INDEX_CHECK_MS);
    timer.unref();
  });
  // A build under way is cancelled, not awaited: it can take minutes, and the next start redoes it.
  // The pool closes after the server stops, so the cancelled check ends first.
  server.ext('onPreStop', async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  });
}
