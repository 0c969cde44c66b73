// The rate-limit step of a route, after authentication, which counted the request in the same round
// trip (admission/admit-request.ts; a 401 is not counted) and before validation (a 400 is counted and carries the
// headers). A refused request is not counted and gets a 429.
import Boom from '@hapi/boom';
import type { Lifecycle, Request } from '@hapi/hapi';
import { putRateHeaders, rateHeaders, type HeaderSink, type RateDecision } from './rate-window.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    rateDecision?: RateDecision;
  }
}

/** An onPostAuth method for routes that count against the key's window. */
export function rateLimitStep(): Lifecycle.Method {
  return (request, h) => {
    if (!request.app.rateDecision?.admitted) throw Boom.tooManyRequests('Rate limit exceeded; retry after the number of seconds in Retry-After');
    return h.continue;
  };
}

/** The rate headers a response to `request` carries, if the request was counted or refused. */
export function rateHeadersOf(request: Request): Record<string, string> {
  return request.app.rateDecision ? rateHeaders(request.app.rateDecision) : {};
}

/** Puts the same headers on `response`. */
export function putRateHeadersOf(request: Request, response: HeaderSink): void {
  if (request.app.rateDecision) putRateHeaders(request.app.rateDecision, response);
}
