// The real reference server on a real database, one per test file, with helpers to read what it serves.
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { type Load, type Violation } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll } from 'vitest';
import { createClient, type ClientOptions, type LoadfeedClient } from '../../src/index.js';

/** A rate limit high enough that tests never wait for the window. */
export const FAST_LIMIT = 1_000_000;

export interface Customer {
  code: string;
  key: string;
  /** A client for this customer whose every response is checked against the contract. */
  client(options?: Partial<ClientOptions>): LoadfeedClient;
  /** Everything the server serves this customer now, in its order (read while nothing writes). */
  served(): Promise<Load[]>;
}

export function useTestServer(options: { maxPageSize?: number } = {}) {
  const database = useTestDatabase();
  let server: TestServer | undefined;
  const violations: Violation[] = [];

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: FAST_LIMIT, ...options });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const checked = (fetch: (request: Request) => Promise<Response>) => async (request: Request) => {
    const response = await fetch(request);
    let body: unknown;
    try {
      body = await response.clone().json();
    } catch {
      // A body cut short (a chaos test's fault) is the client's to report as a connection error.
      return response;
    }
    violations.push(...checkResponse({ status: response.status, headers: response.headers, body }));
    return response;
  };

  return {
    get server(): TestServer {
      if (!server) throw new Error('the test server runs only inside tests and hooks');
      return server;
    },
    /** The server's database, for writes the API has no operation for (deletes, backdating). */
    get databaseUrl(): string {
      return database.url;
    },
    /** Contract violations in any response a customer's client received. */
    violations,
    async customer(rateLimit = FAST_LIMIT): Promise<Customer> {
      const code = `C${randomBytes(4).toString('hex')}`;
      await this.server.createCustomer(code);
      const { key } = await this.server.createKey(code, { rateLimit });
      const baseUrl = this.server.baseUrl;
      const client = (clientOptions: Partial<ClientOptions> = {}) =>
        createClient({ baseUrl, apiKey: key, ...clientOptions, fetch: checked(clientOptions.fetch ?? ((request) => fetch(request))) });
      return {
        code,
        key,
        client,
        async served() {
          const rows: Load[] = [];
          for await (const row of client().loads({ pageSize: 100 })) rows.push(row);
          return rows;
        },
      };
    },
  };
}
