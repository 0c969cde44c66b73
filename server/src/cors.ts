// Cross-origin requests from browsers (CORS), as DECISIONS.md decides: refused unless the operator lists
// the page's origin in CORS_ORIGINS. A listed origin may send `Authorization` and read the headers a
// client needs (the rate-limit headers, Retry-After, X-Request-Id, Date, the settled-through header);
// credentials (cookies) are never allowed. A preflight from a listed origin is answered by a route of its
// own, with no authentication and so never counted against the rate limit; any other OPTIONS keeps the
// feed's 405. With no origin listed, no route changes.
import Boom from '@hapi/boom';
import type { Lifecycle, RouteOptions, RouteOptionsCors, ServerRoute } from '@hapi/hapi';
import { LIST_LOADS_PATH, OPENAPI_PATH, RESPONSE_HEADERS } from '@loadfeed/spec';

/** The headers a page's script may read, beyond those every browser shows it. */
const EXPOSED_HEADERS = [
  RESPONSE_HEADERS.rateLimitLimit,
  RESPONSE_HEADERS.rateLimitRemaining,
  RESPONSE_HEADERS.rateLimitReset,
  RESPONSE_HEADERS.retryAfter,
  RESPONSE_HEADERS.requestId,
  RESPONSE_HEADERS.feedSettledThrough,
  // The SDK reads the server's clock from it to pace requests by X-RateLimit-Reset.
  'Date',
];
/** The request headers a page may send: the key, the SDK's User-Agent (Firefox sends it), the caller's request id and trace. */
const ALLOWED_HEADERS = ['Accept', 'Authorization', 'User-Agent', 'X-Request-Id', 'traceparent', 'tracestate'];
/** How long a browser may reuse a preflight's answer (Chromium keeps it 2 hours at most). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;
/** The methods a page may ask for: the feed's GET, and the HEAD hapi serves beside it. */
const READ_METHODS = new Set(['GET', 'HEAD']);
/** The paths a page may read: the feed, and the contract (no key needed). */
const CROSS_ORIGIN_PATHS = new Set<string>([LIST_LOADS_PATH, OPENAPI_PATH]);

/**
 * `routes` as they are when `origins` is empty. Otherwise the GET routes of the feed and the contract
 * carry hapi's `cors` (its headers are added as the response is sent, so errors carry them too), the
 * feed's preflight route stands in front of its 405, and every other OPTIONS is the 404 it was: hapi's
 * own preflight answer, which hapi puts on every path once a route has `cors`, would answer it with a
 * 200 (even for an origin not listed).
 */
export function withCors(origins: readonly string[], routes: ServerRoute[]): ServerRoute[] {
  if (origins.length === 0) return routes;
  const cors: RouteOptionsCors = {
    origin: [...origins],
    credentials: false,
    headers: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    additionalExposedHeaders: [],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
  const crossOrigin = (route: ServerRoute): ServerRoute => ({ ...route, options: { ...(route.options as RouteOptions), cors } });
  const withHeaders = routes.map((route) => (route.method === 'GET' && CROSS_ORIGIN_PATHS.has(route.path) ? crossOrigin(route) : route));
  return [...withHeaders, crossOrigin(preflightRoute(new Set(origins))), otherOptionsRoute];
}

/** OPTIONS of any path without a route of its own: the 404 of a path with no OPTIONS route. */
const otherOptionsRoute: ServerRoute = {
  method: 'OPTIONS',
  path: '/{path*}',
  options: {
    auth: false,
    payload: { output: 'stream', parse: false },
    handler() {
      throw Boom.notFound();
    },
  },
};

function preflightRoute(listed: ReadonlySet<string>): ServerRoute {
  const answer: Lifecycle.Method = (request, h) => {
    const origin = request.headers.origin as string | undefined;
    const method = (request.headers['access-control-request-method'] as string | undefined)?.toUpperCase();
    // Not a preflight a listed page sends: the same 405 as without CORS (loads/route.ts).
    if (origin === undefined || !listed.has(origin) || method === undefined || !READ_METHODS.has(method)) {
      throw Boom.methodNotAllowed('OPTIONS', undefined, ['GET']);
    }
    // The origin, Vary and the exposed headers are added by the route's `cors`, as on the GET routes.
    return h
      .response()
      .code(204)
      .header('Access-Control-Allow-Methods', 'GET')
      .header('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '))
      .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  };
  return {
    method: 'OPTIONS',
    path: LIST_LOADS_PATH,
    options: {
      auth: false,
      // A preflight has no body worth reading, and a 405 must not wait on one (as the feed's own 405).
      payload: { output: 'stream', parse: false },
      handler: answer,
    },
  };
}
