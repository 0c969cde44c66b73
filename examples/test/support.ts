// What the examples' tests share: the reference server on a real database, a way to run an example as a
// user does (a child process with only the environment it is given), and what the API serves to compare.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type LoadRow } from '@loadfeed/sdk';
import { startTestServer, type LoadInput, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { LOAD_STATUSES, type Load } from '@loadfeed/spec';
import { afterAll, beforeAll, expect } from 'vitest';

export const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));
/** Where npm links the kit's commands (loadfeed-server, loadfeed-conformance, loadfeed). */
const BIN = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));
/** A rate limit the tests never wait for. */
const FAST_LIMIT = 1_000_000;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command as a user would, with the kit's commands on PATH and no LOADFEED_* from this machine. */
export function run(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<RunResult> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LOADFEED_') && name !== 'DATABASE_URL'));
  const env = { ...inherited, PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`, ...options.env };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd: options.cwd ?? EXAMPLES, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const DAY_MS = 86_400_000;

/** Load n of a customer: recent and future pickups (inside the feed's window), varied values. */
export function loadInput(n: number, overrides: Partial<LoadInput> = {}): LoadInput {
  const pickup = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + ((n % 20) - 10) * DAY_MS);
  return {
    loadNumber: `EX-${String(n).padStart(5, '0')}`,
    status: LOAD_STATUSES[n % LOAD_STATUSES.length]!,
    poNumber: n % 4 === 0 ? null : `PO-${7000 + n}`,
    originCity: 'Dallas',
    originState: 'TX',
    destinationCity: n % 3 === 0 ? null : 'Memphis',
    destinationState: n % 3 === 0 ? null : 'TN',
    scheduledPickupDate: pickup.toISOString(),
    scheduledPickupTime: `${String(6 + (n % 12)).padStart(2, '0')}:15`,
    miles: `${100 + n}.5`,
    totalCost: `${1200 + n * 3}.25`,
    ...overrides,
  };
}

export interface Customer {
  code: string;
  key: string;
  /** Everything the API serves this customer now, in its order. */
  served(): Promise<Load[]>;
}

/** The reference server on a fresh database, for one test file. */
export function useReferenceServer(options: { maxPageSize?: number } = {}) {
  const database = useTestDatabase();
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: FAST_LIMIT, ...options });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const current = (): TestServer => {
    if (!server) throw new Error('the server runs only inside tests and hooks');
    return server;
  };
  return {
    get server() {
      return current();
    },
    /** A new customer with `count` loads, imported `perWrite` at a time (each write is one updatedAt). */
    async customer(count: number, perWrite = 4): Promise<Customer> {
      const code = `X${randomBytes(4).toString('hex')}`;
      await current().createCustomer(code);
      for (let from = 1; from <= count; from += perWrite) {
        await current().importLoads(code, Array.from({ length: Math.min(perWrite, count - from + 1) }, (_, index) => loadInput(from + index)));
      }
      const { key } = await current().createKey(code, { rateLimit: FAST_LIMIT });
      const baseUrl = current().baseUrl;
      return {
        code,
        key,
        async served() {
          const rows: LoadRow[] = [];
          for await (const row of createClient({ baseUrl, apiKey: key }).loads({ pageSize: 100 })) rows.push(row);
          return rows;
        },
      };
    },
  };
}

/** A scratch folder for this test file, removed after it. */
export function useScratchFolder(): { readonly path: string } {
  let path: string | undefined;
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), 'loadfeed-example-'));
  });
  afterAll(async () => {
    if (path) await rm(path, { recursive: true, force: true });
  });
  return {
    get path() {
      if (!path) throw new Error('the scratch folder exists only inside tests and hooks');
      return path;
    },
  };
}

/**
 * A deployment that fails part-way: forwards to `target`, but answers the `failAt`-th request for loads
 * (1-based) and every one after it with a 401, which no client retries. A sync through it stops after
 * `failAt - 1` pages.
 */
export async function startFailingProxy(target: string, failAt: number): Promise<{ url: string; close(): Promise<void> }> {
  let loadsRequests = 0;
  const proxy: Server = createServer((request, response) => {
    void (async () => {
      if (request.url?.startsWith('/api/v1/loads') && ++loadsRequests >= failAt) {
        response.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' });
        response.end(JSON.stringify({ error: 'Invalid or missing API key' }));
        return;
      }
      const upstream = await fetch(target + request.url, { headers: { authorization: request.headers.authorization ?? '' } });
      const headers = Object.fromEntries([...upstream.headers].filter(([name]) => name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding'));
      response.writeHead(upstream.status, headers);
      response.end(Buffer.from(await upstream.arrayBuffer()));
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/** A row of an example's table (snake_case columns) as the API's Load: camelCase names, ISO date-times. */
export function asLoad(row: Record<string, unknown>): Load {
  const entries = Object.entries(row).map(([column, value]) => [
    column.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase()),
    value instanceof Date ? value.toISOString() : value,
  ]);
  return Object.fromEntries(entries) as Load;
}

export const byLoadNumber = <T extends { loadNumber: string }>(rows: readonly T[]) =>
  [...rows].sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : a.loadNumber > b.loadNumber ? 1 : 0));

export const newestUpdatedAt = (loads: readonly Load[]) => loads.map((load) => load.updatedAt).sort().at(-1);

/**
 * A copy left by a sync that stopped: every load changed before the cursor is there as served, none
 * changed after it. (Loads AT the cursor may be partly there: a run starts again from the cursor minus
 * an overlap, so it reads them again.)
 */
export function expectWholePagesUpTo(copy: readonly Load[], cursor: string, served: readonly Load[]): void {
  const before = served.filter((load) => load.updatedAt < cursor);
  const at = served.filter((load) => load.updatedAt === cursor);
  const copied = new Map(copy.map((load) => [load.loadNumber, load]));
  for (const load of before) expect(copied.get(load.loadNumber)).toEqual(load);
  for (const load of copy) expect(load.updatedAt <= cursor, `${load.loadNumber} is past the cursor`).toBe(true);
  expect(copy.length).toBeGreaterThanOrEqual(before.length);
  expect(copy.length).toBeLessThanOrEqual(before.length + at.length);
  for (const load of copy) expect(served).toContainEqual(load);
}
