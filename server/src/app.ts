// createServer: the hapi server of the Customer Data API, configured and routed but not listening, so
// that tests drive it with server.inject() and the CLI's `start` decides when to listen. Dependencies
// (pool, clock, logger) are arguments: the seam for tests, and one pool per process.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import Boom from '@hapi/boom';
import Hapi from '@hapi/hapi';
import { RESPONSE_HEADERS } from '@loadfeed/spec';
import type pg from 'pg';
import type { Logger } from 'pino';
import { keyAdmission } from './admission/admit-request.js';
import { registerAuthScheme } from './admission/scheme.js';
import { standbyOptionsOf, type Config } from './config/load.js';
import { withCors } from './cors.js';
import { DatabaseCheck } from './db/database-check.js';
import { keepFeedIndexCurrent } from './db/feed-index.js';
import { PrimaryBreaker } from './db/primary-breaker.js';
import { ReadRouter } from './db/read-router.js';
import { Standbys } from './db/standbys.js';
import type { Clock } from './clock.js';
import { checkDefinitions } from './db/definitions-check.js';
import { checkSettledFeed, watchFeedDefinitions } from './db/settled-feed-check.js';
import { apiReferenceRoutes } from './docs/routes.js';
import { rootRedirectRoute } from './docs/root-redirect.js';
import { errorResponse } from './errors.js';
import { healthRoutes } from './health.js';
import { keepFeedCountsFolded } from './loads/count-folding.js';
import { loadsRoutes } from './loads/route.js';
import { logFailure, registerRequestLogging } from './logging.js';
import { answerMalformedRequests } from './malformed-requests.js';
import type { Metrics } from './metrics.js';
import { openApiRoute } from './openapi.js';
import { putRateHeadersOf, rateHeadersOf } from './admission/rate-limit-step.js';
import { requestIdOf } from './request-id.js';
import { observeRequests } from './tracing/observe.js';

export type { Clock };

export interface ServerDeps {
  pool: pg.Pool;
  /** Session-level work (the start-up check of the settled feed, the feed index's renewal: an advisory
   * lock and a concurrent build) goes to PostgreSQL itself, never through a transaction-mode pooler
   * (DATABASE_DIRECT_URL); default: `pool`. */
  directPool?: pg.Pool;
  logger: Logger;
  clock?: Clock;
  /** Where the server records its figures (metrics.ts); absent: it records none. */
  metrics?: Metrics;
}

/** How often a listening server checks whether the feed index is due for its monthly renewal. */
const FEED_INDEX_CHECK_MS = 6 * 60 * 60 * 1000;
/** Node's default bound on a whole request; kept, and never below the headers' bound. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

export async function createServer(config: Config, { pool, directPool = pool, logger, clock = () => new Date(), metrics }: ServerDeps): Promise<Hapi.Server> {
  // On the direct connection (DATABASE_DIRECT_URL): the check holds a writer's transaction open while it
  // asks for the horizon, which a transaction-mode pooler must not have to carry for it.
  await checkSettledFeed(directPool);
  await checkDefinitions(directPool, logger);
  // The listener is Node's, with its limits set here: a client that has not sent its headers within
  // HEADERS_TIMEOUT_MS gets a 408, checked every second rather than Node's every 30 s; a missing Host
  // header is answered by malformed-requests.ts with the error body rather than by Node with a bare 400.
  const listener = createHttpServer({
    requireHostHeader: false,
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: Math.max(config.headersTimeoutMs, NODE_REQUEST_TIMEOUT_MS),
    connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
  });
  const server = Hapi.server({
    listener,
    port: config.port,
    host: config.host,
    // Every failure is logged once through the logger (bounded lines, keys masked); hapi's own debug
    // channel writes to the console, past both.
    debug: false,
  });

  server.ext('onRequest', (request, h) => {
    request.app.requestId = requestIdOf(request);
    return h.continue;
  });
  registerRequestLogging(server, logger);
  if (metrics) {
    metrics.watchPool('primary', pool);
    server.events.on('response', (request) => metrics.recordResponse(request));
  }
  answerMalformedRequests(server, logger);
  registerAuthScheme(server, { lookUp: keyAdmission(pool, config.rateLimitPerMinute) });

  // Pages are read on the standbys when they are current enough (db/read-router.ts); their pools live as
  // long as the server. The check every interval moves the primary's breaker, which the feed's route
  // consults first (db/primary-breaker.ts), and tells /readyz which databases answer.
  const standbys = new Standbys(config.databaseReplicaUrls, standbyOptionsOf(config), { metrics, logger });
  const breaker = new PrimaryBreaker(logger);
  const check = new DatabaseCheck(pool, standbys, breaker, {
    everyMs: config.dbCheckIntervalMs,
    timeoutMs: config.dbCheckTimeoutMs,
    primaryUrl: config.databaseUrl,
    metrics,
    logger,
  });
  const reads = new ReadRouter(pool, standbys, { metrics });
  server.ext('onPostStart', () => check.start());
  server.ext('onPostStop', async () => {
    await check.stop();
    await standbys.close();
  });

  server.route(withCors(config.corsOrigins, [
    ...loadsRoutes({
      clock,
      maxPageSize: config.maxPageSize,
      gate: { concurrency: config.dbPoolSize, maxQueued: config.maxQueuedRequests, maxWaitMs: config.maxQueueWaitMs },
      metrics,
      reads,
      breaker,
    }),
    openApiRoute(),
    ...apiReferenceRoutes(),
    rootRedirectRoute(),
    ...healthRoutes(check, watchFeedDefinitions(pool)),
  ]));

  // Last stop of every response: an error becomes SPEC's error body (errors.ts), a 5xx's cause is
  // logged with the request id; every response gets its request id, and a counted or refused request
  // its rate headers.
  // A page's headers are put on its response one by one: records of them, spread and walked, make this
  // step half again as dear (server/BENCHMARKS.md, "Less work around the statements").
  server.ext('onPreResponse', (request, h) => {
    const { response } = request;
    const requestId = request.app.requestId ?? randomUUID();
    if (!Boom.isBoom(response)) {
      putRateHeadersOf(request, response);
      response.header(RESPONSE_HEADERS.requestId, requestId);
      return h.continue;
    }
    const headers = { ...rateHeadersOf(request), [RESPONSE_HEADERS.requestId]: requestId };
    const error = errorResponse(response);
    if (error.status >= 500) logFailure(logger, request, error.status, response, (response.data as { reason?: string } | null)?.reason);
    const reply = h.response(error.body).code(error.status);
    for (const [name, value] of Object.entries({ ...error.headers, ...headers })) reply.header(name, value);
    return reply;
  });

  keepFeedIndexFresh(server, directPool, clock, logger);
  keepFeedCountsFolded(server, directPool, logger);
  await observeRequests(server, config, logger);
  return server;
}

/** While the server listens, renews the cut-off indexes (the feed's, the status filter's) when the window has moved on (src/db/feed-index.ts). */
function keepFeedIndexFresh(server: Hapi.Server, pool: pg.Pool, clock: Clock, logger: Logger): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopping = new AbortController();
  const check = () => {
    running = keepFeedIndexCurrent(pool, clock(), { signal: stopping.signal }).then(
      ({ indexes }) => {
        for (const { current, rebuilt } of indexes) if (rebuilt) logger.info({ index: current }, 'feed index renewed');
      },
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
