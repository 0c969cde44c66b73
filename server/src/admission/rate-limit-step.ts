// The rate-limit step of a route, after authentication, which counted the request in the same round
// trip (admit-request.ts; a 401 is not counted) and before validation (a 400 is counted and carries the
// headers). A refused request is not counted and gets a 429.
import Boom from '@hapi/boom';
import type { Lifecycle, Request } from '@hapi/hapi';
import { putRateHeaders, rateHeaders, type HeaderSink, type RateDecision } from './rate-window.js';

/** What the key's admission decided of the request's rate window (request-admission.ts). */
function decisionOf(request: Request): RateDecision | undefined {
  return request.app.admission?.key?.decision;
}

/** An onPostAuth method for routes that count against the key's window. */
export function rateLimitStep(): Lifecycle.Method {
  return (request, h) => {
    if (!decisionOf(request)?.admitted) throw Boom.tooManyRequests('Rate limit exceeded; retry after the number of seconds in Retry-After');
    return h.continue;
  };
}

/** The rate headers a response to `request` carries, if the request was counted or refused. */
export function rateHeadersOf(request: Request): Record<string, string> {
  const decision = decisionOf(request);
  return decision ? rateHeaders(decision) : {};
}

/** Puts the same headers on `response`. */
export function putRateHeadersOf(request: Request, response: HeaderSink): void {
  const decision = decisionOf(request);
  if (decision) putRateHeaders(decision, response);
}
