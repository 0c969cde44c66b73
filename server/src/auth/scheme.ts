// The hapi auth scheme `api-key`: `Authorization: Bearer <key>`, the scheme name in any case. Every
// failure (no header, another scheme, a malformed, unknown or revoked key) is the same 401, so that a
// caller learns nothing about which keys exist; errors.ts renders it.
import Boom from '@hapi/boom';
import type { Server, ServerAuthSchemeObject } from '@hapi/hapi';
import type pg from 'pg';
import type { Clock } from '../app.js';
import { findActiveKey } from './credentials.js';
import { isWellFormedKey } from './key-format.js';

export const AUTH_SCHEME = 'api-key';
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface AuthSchemeOptions {
  pool: pg.Pool;
  clock: Clock;
}

/** The one 401 every authentication failure becomes. */
export function unauthorized(): Boom.Boom {
  return Boom.unauthorized(null, 'Bearer');
}

export function registerAuthScheme(server: Server, { pool, clock }: AuthSchemeOptions): void {
  server.auth.scheme(AUTH_SCHEME, (): ServerAuthSchemeObject => ({
    async authenticate(request, h) {
      const header: unknown = request.headers.authorization;
      const key = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
      if (key === undefined || !isWellFormedKey(key)) throw unauthorized();
      const credentials = await findActiveKey(pool, key, clock());
      if (!credentials) throw unauthorized();
      return h.authenticated({ credentials: { app: credentials } });
    },
  }));
  server.auth.strategy(AUTH_SCHEME, AUTH_SCHEME);
}
