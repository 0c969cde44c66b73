// What the examples' tests share: the reference server on a real database, a way to run an example as a
// user does (a child process with only the environment it is given), and what the API serves to compare.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type LoadRow } from '@loadfeed/sdk';
import { startTestServer, type LoadInput, type TestServer } from '@loadfeed/server/testing';
import { useScratchFolder as useScratchFolderOf, useTestDatabase } from '@loadfeed/server/testing/vitest';
import { LOAD_STATUSES, type Load } from '@loadfeed/spec';
import { afterAll, beforeAll, expect } from 'vitest';

export const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));
/** The root of this checkout. */
export const CHECKOUT = resolve(EXAMPLES, '..');

/**
 * The kit's commands on PATH, as `npm install` puts them for a user. They are small wrappers that run each
 * package's `bin` with node: npm marks a bin executable when it links it, and in a fresh checkout that
 * happens before `tsc -b` has written the file, so the link itself may not be runnable.
 */
const BIN = (() => {
  const folder = mkdtempSync(join(tmpdir(), 'loadfeed-bin-'));
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  const require = createRequire(import.meta.url);
  for (const packageName of ['@loadfeed/server', '@loadfeed/conformance', '@loadfeed/sdk']) {
    const manifestPath = require.resolve(`${packageName}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: Record<string, string> };
    for (const [command, target] of Object.entries(manifest.bin ?? {})) {
      writeFileSync(join(folder, command), `#!/bin/sh\nexec "${process.execPath}" "${resolve(dirname(manifestPath), target)}" "$@"\n`, { mode: 0o755 });
    }
  }
  return folder;
})();
/** A rate limit the tests never wait for. */
const FAST_LIMIT = 1_000_000;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /**
   * As a user outside this checkout: no kit commands on PATH but those `cwd`'s own `npm install` made, and
   * none of the npm_* settings that `npm test` hands its children (they would point npm at this checkout).
   */
  outsideCheckout?: boolean;
}

/** The npm settings of the machine's user, which a project outside this checkout shares (the cache above all). */
const USER_NPM_SETTINGS = /^npm_config_(cache|registry|userconfig|globalconfig)$/i;

/** Starts a command as a user would, with the kit's commands on PATH and no LOADFEED_* or DATABASE_URL from this machine. */
export function start(command: string, args: string[], options: RunOptions = {}): ChildProcessWithoutNullStreams {
  const foreign = (name: string) =>
    name.startsWith('LOADFEED_') ||
    name === 'DATABASE_URL' ||
    (options.outsideCheckout === true && ((/^npm_/i.test(name) && !USER_NPM_SETTINGS.test(name)) || name === 'INIT_CWD'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !foreign(name)));
  const path = options.outsideCheckout
    ? (process.env.PATH ?? '').split(delimiter).filter((folder) => !`${resolve(folder)}/`.startsWith(`${CHECKOUT}/`)).join(delimiter)
    : `${BIN}${delimiter}${process.env.PATH ?? ''}`;
  const env = { ...inherited, PATH: path, ...options.env };
  const child = spawn(command, args, { env, cwd: options.cwd ?? EXAMPLES });
  child.stdin.end();
  return child;
}

/** Runs a command (see `start`) to its end. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = start(command, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const DAY_MS = 86_400_000;

/** Load n of a customer (load numbers carry the customer's prefix): pickups inside the feed's window, varied values. */
function loadInput(prefix: string, n: number, overrides: Partial<LoadInput> = {}): LoadInput {
  const pickup = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + ((n % 20) - 10) * DAY_MS);
  return {
    loadNumber: `${prefix}-${String(n).padStart(5, '0')}`,
    status: LOAD_STATUSES[n % LOAD_STATUSES.length]!,
    poNumber: n % 4 === 0 ? null : `${prefix}-PO-${7000 + n}`,
    billingRefNumber: n % 5 === 0 ? null : `${prefix}-BR-${n % 3}`,
    originCity: 'Dallas',
    originState: 'TX',
    destinationCity: n % 3 === 0 ? null : 'Memphis',
    destinationState: n % 3 === 0 ? null : 'TN',
    scheduledPickupDate: pickup.toISOString(),
    scheduledPickupTime: `${String(6 + (n % 12)).padStart(2, '0')}:15`,
    scheduledDeliveryDate: n % 3 === 0 ? null : new Date(pickup.getTime() + (1 + (n % 3)) * DAY_MS).toISOString(),
    miles: `${100 + n}.5`,
    totalCost: `${1200 + n * 3}.25`,
    ...overrides,
  };
}

export interface Customer {
  code: string;
  key: string;
  /** This customer's load n, as `customer(count)` imported it, with `overrides`. */
  load(n: number, overrides?: Partial<LoadInput>): LoadInput;
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
    /** A new customer with `count` loads, imported `perWrite` at a time (rows written in one millisecond share a stamp). */
    async customer(count: number, perWrite = 4): Promise<Customer> {
      const code = `X${randomBytes(4).toString('hex')}`;
      const load = (n: number, overrides: Partial<LoadInput> = {}) => loadInput(code, n, overrides);
      await current().createCustomer(code);
      for (let from = 1; from <= count; from += perWrite) {
        await current().importLoads(code, Array.from({ length: Math.min(perWrite, count - from + 1) }, (_, index) => load(from + index)));
      }
      const { key } = await current().createKey(code, { rateLimit: FAST_LIMIT });
      const baseUrl = current().baseUrl;
      return {
        code,
        key,
        load,
        async served() {
          const rows: LoadRow[] = [];
          for await (const row of createClient({ baseUrl, apiKey: key }).loads({ pageSize: 100 })) rows.push(row);
          return rows;
        },
      };
    },
    /** A new customer of `count` loads: the environment README's quickstarts read, and how many loads the API serves it. */
    async quickstartCustomer(count: number): Promise<{ env: Record<string, string>; loads: number }> {
      const customer = await this.customer(count);
      return { env: { LOADFEED_BASE_URL: current().baseUrl, LOADFEED_API_KEY: customer.key }, loads: (await customer.served()).length };
    },
  };
}

/** A scratch folder for this test file, removed after it. */
export const useScratchFolder = () => useScratchFolderOf('loadfeed-example-');

export interface ProxyFaults {
  /** Answers the n-th request for loads (1-based) and every later one with a 401, which no client retries. */
  refuseFrom?: number;
  /** Rewrites every response body on its way back. */
  alterBody?(body: string): string;
}

/** A broken deployment: the reference server behind a proxy that injects `faults`. */
export async function startProxy(target: string, faults: ProxyFaults): Promise<{ url: string; close(): Promise<void> }> {
  let loadsRequests = 0;
  const proxy: Server = createServer((request, response) => {
    void (async () => {
      if (request.url?.startsWith('/api/v1/loads') && faults.refuseFrom !== undefined && ++loadsRequests >= faults.refuseFrom) {
        response.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' });
        response.end(JSON.stringify({ error: 'Invalid or missing API key' }));
        return;
      }
      const upstream = await fetch(target + request.url, { method: request.method, headers: { authorization: request.headers.authorization ?? '' } });
      const headers = Object.fromEntries([...upstream.headers].filter(([name]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(name)));
      const body = await upstream.text();
      response.writeHead(upstream.status, headers);
      response.end(faults.alterBody ? faults.alterBody(body) : body);
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/** A row of an example's table (snake_case columns) as the API's Load: camelCase names, ISO date-times; the SDK's removal and suspect markers dropped. */
export function asLoad(row: Record<string, unknown>): Load {
  const entries = Object.entries(row)
    .filter(([column]) => !['removed_at', 'removedAt', 'suspected_at', 'suspectedAt'].includes(column))
    .map(([column, value]) => [
    column.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase()),
    value instanceof Date ? value.toISOString() : value,
  ]);
  return Object.fromEntries(entries) as Load;
}

export const byLoadNumber = <T extends { loadNumber: string }>(rows: readonly T[]) =>
  [...rows].sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : a.loadNumber > b.loadNumber ? 1 : 0));

export const newestUpdatedAt = (loads: readonly Load[]) => loads.map((load) => load.updatedAt).sort().at(-1);

/**
 * A copy left by a sync that stopped: every load changed before the cursor is there as served, and every
 * load in the copy is one the API served, whole. The cursor is never ahead of the rows: loads AT the
 * cursor may be partly there, and loads past it may be there too (a stretch of pages read by number hands
 * its rows over before the check that lets the cursor move, sdk/README "Ties on a settled feed"); a run
 * starts again from the cursor minus an overlap, so it reads them again.
 */
export function expectWholePagesUpTo(copy: readonly Load[], cursor: string, served: readonly Load[]): void {
  const before = served.filter((load) => load.updatedAt < cursor);
  const copied = new Map(copy.map((load) => [load.loadNumber, load]));
  for (const load of before) expect(copied.get(load.loadNumber), `${load.loadNumber} is before the cursor`).toEqual(load);
  expect(copy.length).toBeGreaterThanOrEqual(before.length);
  for (const load of copy) expect(served).toContainEqual(load);
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
