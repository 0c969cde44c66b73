// The hapi auth scheme `api-key`: `Authorization: Bearer <key>`, the scheme name in any case. Every
// failure (no header, another scheme, a malformed, unknown or revoked key, more than one Authorization
// header) is the same 401, so that a caller learns nothing about which keys exist; errors.ts renders it.
// The scheme reads the key from the header; who the key belongs to is asked of `lookUp` (admit-request.ts,
// which counts the request and fixes its horizon in the same round trip), so that the scheme holds
// credentials and no policy.
import Boom from '@hapi/boom';
import type { Request, Server, ServerAuthSchemeObject } from '@hapi/hapi';
import type { ApiKeyCredentials } from './credentials.js';
import { isWellFormedKey } from './key-format.js';

export const AUTH_SCHEME = 'api-key';
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface AuthSchemeOptions {
  /** The credentials of a well-formed `key`, or null when no active key has it (a 401). */
  lookUp: (key: string, request: Request) => Promise<ApiKeyCredentials | null>;
}

/** The one 401 every authentication failure becomes. */
export function unauthorized(): Boom.Boom {
  return Boom.unauthorized(null, 'Bearer');
}

/**
 * Whether the request carries more than one Authorization header (DECISIONS.md: the 401). Node keeps the
 * first of them in `headers` and drops the rest, so the raw list is counted.
 */
function hasSeveralAuthorizations(request: Request): boolean {
  // server.inject()'s requests have no raw list (nor a way to send a header twice).
  const raw = request.raw.req.rawHeaders ?? [];
  let seen = 0;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]!.length === 13 && raw[index]!.toLowerCase() === 'authorization' && ++seen > 1) return true;
  }
  return false;
}

export function registerAuthScheme(server: Server, { lookUp }: AuthSchemeOptions): void {
  server.auth.scheme(AUTH_SCHEME, (): ServerAuthSchemeObject => ({
    async authenticate(request, h) {
      const header: unknown = request.headers.authorization;
      const key = typeof header === 'string' && !hasSeveralAuthorizations(request) ? BEARER.exec(header)?.[1] : undefined;
      if (key === undefined || !isWellFormedKey(key)) throw unauthorized();
      const credentials = await lookUp(key, request);
      if (!credentials) throw unauthorized();
      return h.authenticated({ credentials: { app: credentials } });
    },
  }));
  server.auth.strategy(AUTH_SCHEME, AUTH_SCHEME);
}
