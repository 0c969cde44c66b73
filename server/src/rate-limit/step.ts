// The rate-limit step of a route: after authentication (a 401 is not counted) and before validation
// (a 400 is counted and carries the headers). A refused request is not counted and gets a 429.
import Boom from '@hapi/boom';
import type { Lifecycle, Request } from '@hapi/hapi';
import type pg from 'pg';
import type { Clock } from '../app.js';
import { countRequest, rateHeaders, type RateDecision } from './window.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    rateDecision?: RateDecision;
  }
}

export interface RateLimitOptions {
  pool: pg.Pool;
  clock: Clock;
  /** The limit of keys without their own. */
  defaultLimit: number;
}

/** An onPostAuth method for routes that count against the key's window. */
export function rateLimitStep({ pool, clock, defaultLimit }: RateLimitOptions): Lifecycle.Method {
  return async (request, h) => {
    const credentials = request.auth.credentials.app!;
    const decision = await countRequest(pool, credentials.keyId, credentials.rateLimit ?? defaultLimit, clock());
    request.app.rateDecision = decision;
    if (!decision.admitted) throw Boom.tooManyRequests('Rate limit exceeded; retry after the number of seconds in Retry-After');
    return h.continue;
  };
}

/** The rate headers a response to `request` carries, if the request was counted or refused. */
export function rateHeadersOf(request: Request): Record<string, string> {
  return request.app.rateDecision ? rateHeaders(request.app.rateDecision) : {};
}
