// Every error a client can get, as SPEC §7's error body, decided in this one place: the routes' errors
// (through hapi) and the refusals of requests that never reach a route (malformed-requests.ts) alike.
// Errors are raised as Boom where they are found; here each becomes `{ error, details? }` with the
// headers its status needs.
// A 5xx never shows what went wrong inside (app.ts logs its cause, with the request id); a 401 is the
// same whatever its cause; a 503 says when to come back.
import type { Boom } from '@hapi/boom';
import { RESPONSE_HEADERS, type ErrorBody, type ValidationErrorBody } from '@loadfeed/spec';

export interface ErrorResponse {
  status: number;
  body: ErrorBody | ValidationErrorBody;
  headers: Record<string, string>;
}

/** Fixed messages by status: what a client may read, whatever the error carried. */
const MESSAGES: Record<number, string> = {
  401: 'A valid API key is required: send Authorization: Bearer <key>',
  404: 'Not found',
  // Whatever refused the method (the loads route, or a CONNECT the listener refuses): one text.
  405: 'Method not allowed; this server answers GET only',
  500: 'Internal server error',
  503: 'The server is busy; retry after the number of seconds in Retry-After',
};

/** Headers that belong to a status whatever raised it. */
const HEADERS: Record<number, Record<string, string>> = {
  401: { 'WWW-Authenticate': 'Bearer' },
};

/**
 * How much of a 400's problems its body lists: the first few, each cut short, then how many more. A query
 * of 2,700 unknown parameters (8 KB) once got a 179 KB body; a body many times its request's size is an
 * amplifier, and a client fixes the first problems first anyway.
 */
const MAX_DETAILS = 10;
const MAX_DETAIL_LENGTH = 300;

function bounded(details: string[]): string[] {
  const listed = details.slice(0, MAX_DETAILS).map((detail) => (detail.length <= MAX_DETAIL_LENGTH ? detail : `${detail.slice(0, MAX_DETAIL_LENGTH - 1)}…`));
  const more = details.length - listed.length;
  return more > 0 ? [...listed, `… and ${more} more problem${more === 1 ? '' : 's'} (${details.length} in all)`] : listed;
}

function detailsOf(error: Boom): string[] {
  const data = error.data as { details?: unknown } | null;
  const details = data?.details;
  return bounded(Array.isArray(details) && details.every((detail) => typeof detail === 'string') ? details : [error.message]);
}

/** The response an error becomes. */
export function errorResponse(error: Boom): ErrorResponse {
  const status = error.output.statusCode;
  const headers: Record<string, string> = { ...HEADERS[status] };
  if (status === 405) headers.Allow = String(error.output.headers.Allow ?? 'GET');
  if (status === 503) headers[RESPONSE_HEADERS.retryAfter] = String((error.data as { retryAfter?: number } | null)?.retryAfter ?? 1);
  if (status >= 500) return { status, body: { error: MESSAGES[status] ?? MESSAGES[500]! }, headers };
  const message = MESSAGES[status] ?? error.message;
  if (status === 400) return { status, body: { error: message, details: detailsOf(error) }, headers };
  return { status, body: { error: message }, headers };
}
