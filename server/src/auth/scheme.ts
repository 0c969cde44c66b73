// The hapi auth scheme `api-key`: `Authorization: Bearer <key>`, the scheme name in any case. Every
// failure (no header, another scheme, a malformed, unknown or revoked key) is the same 401, so that a
// caller learns nothing about which keys exist; errors.ts renders it. A known key's request is counted
// on the database's clock and its feed's horizon fixed in the same round trip (admission.ts); the
// rate-limit step acts on it.
import Boom from '@hapi/boom';
import type { Server, ServerAuthSchemeObject } from '@hapi/hapi';
import type pg from 'pg';
import { admitRequest } from './admission.js';
import { isWellFormedKey } from './key-format.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** The customer's settled horizon, fixed when the request was admitted. */
    settledThrough?: string;
    /** The customer's feed version read after the horizon: what a standby must show to serve the page. */
    feedVersion?: bigint;
  }
}

export const AUTH_SCHEME = 'api-key';
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface AuthSchemeOptions {
  pool: pg.Pool;
  /** The limit of keys without their own. */
  defaultRateLimit: number;
}

/** The one 401 every authentication failure becomes. */
export function unauthorized(): Boom.Boom {
  return Boom.unauthorized(null, 'Bearer');
}

export function registerAuthScheme(server: Server, { pool, defaultRateLimit }: AuthSchemeOptions): void {
  server.auth.scheme(AUTH_SCHEME, (): ServerAuthSchemeObject => ({
    async authenticate(request, h) {
      const header: unknown = request.headers.authorization;
      const key = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
      if (key === undefined || !isWellFormedKey(key)) throw unauthorized();
      const admission = await admitRequest(pool, key, defaultRateLimit);
      if (!admission) throw unauthorized();
      request.app.rateDecision = admission.decision;
      request.app.settledThrough = admission.settledThrough;
      request.app.feedVersion = admission.feedVersion;
      return h.authenticated({ credentials: { app: admission.credentials } });
    },
  }));
  server.auth.strategy(AUTH_SCHEME, AUTH_SCHEME);
}
