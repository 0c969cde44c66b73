// The request's id (DECISIONS.md, "Other responses"): a caller's well-formed X-Request-Id is kept, so that
// one id follows a request through the caller's logs and the server's; any other value (absent, too long,
// with characters a log line or a header could be broken with, or several joined by Node into one) is
// replaced by a new id. The id goes back on the response (app.ts) and into every log line of the request.
import { randomUUID } from 'node:crypto';
import type { Request } from '@hapi/hapi';

/** 1-128 letters, digits, `.`, `_`, `:` or `-`. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of `request`: the caller's when it is well formed, else a new one. */
export function requestIdOf(request: Pick<Request, 'headers'>): string {
  const given: unknown = request.headers['x-request-id'];
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
}
