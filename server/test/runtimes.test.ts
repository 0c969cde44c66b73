// The server on the Node lines the README names beside Node 20 (this one): `loadfeed-server start` from
// this checkout under Node 22, 24 and 26 (installed by scripts/runtimes.mjs), each against one database,
// checked by a named subset: a page valid by the contract and equal to the one Node 20 serves, the 401,
// the 405, the contract, a CORS preflight, a 429 with Retry-After, and a clean stop on SIGTERM.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../src/testing/index.js';
import { useTestDatabase } from '../src/testing/vitest.js';

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(CHECKOUT, 'server', 'bin', 'loadfeed-server.js');
const ORIGIN = 'https://app.example.com';

/** The Node binaries scripts/runtimes.mjs installs (it installs them first when missing). */
function installedNodes(): Record<'node22' | 'node24' | 'node26', string> {
  return JSON.parse(execFileSync(process.execPath, [join(CHECKOUT, 'scripts', 'runtimes.mjs'), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as Record<'node22' | 'node24' | 'node26', string>;
}

interface Started {
  baseUrl: string;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop: () => Promise<number | null>;
}

/** `loadfeed-server start` under `node`, on a port it picks; resolves once it says where it listens. */
function startUnder(node: string, databaseUrl: string): Promise<Started> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', CORS_ORIGINS: ORIGIN, DB_POOL_SIZE: '2' };
  const child = spawn(node, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" within 30 s:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      resolve({
        baseUrl: listening[1]!,
        output: () => output,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${output}`)));
  });
}

async function asChecked(response: Response): Promise<{ status: number; headers: Headers; body: unknown }> {
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('the server under Node 22, 24 and 26', () => {
  const database = useTestDatabase();
  let nodes: Record<'node22' | 'node24' | 'node26', string>;
  let reference: TestServer;
  let key: string;
  let limitedKey: string;
  let expectedPage: unknown;

  beforeAll(async () => {
    nodes = installedNodes();
    reference = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: 1_000_000 });
    await reference.createCustomer('acme');
    await reference.seedLoads('acme', { count: 60 });
    key = (await reference.createKey('acme')).key;
    limitedKey = (await reference.createKey('acme', { rateLimit: 3 })).key;
    const page = await fetch(`${reference.baseUrl}/api/v1/loads?pageSize=50&page=2`, { headers: { authorization: `Bearer ${key}` } });
    expectedPage = await page.json();
    await reference.stop();
  }, 120_000);
  afterAll(async () => {
    await reference?.stop().catch(() => undefined);
  });

  for (const runtime of ['node22', 'node24', 'node26'] as const) {
    it(`${runtime}: a page as Node 20 serves it, the 401, the 405, the contract, a preflight, a 429, and a clean stop`, async () => {
      const server = await startUnder(nodes[runtime], database.url);
      let stopped = false;
      try {
        const version = execFileSync(nodes[runtime], ['--version'], { encoding: 'utf8' });
        expect(version).toMatch(new RegExp(`^v${runtime.slice(4)}\\.`));

        const page = await asChecked(await fetch(`${server.baseUrl}/api/v1/loads?pageSize=50&page=2`, { headers: { authorization: `Bearer ${key}` } }));
        expect(checkResponse(page)).toEqual([]);
        expect(page.status).toBe(200);
        expect(page.body).toEqual(expectedPage);

        const unauthorized = await asChecked(await fetch(`${server.baseUrl}/api/v1/loads`));
        expect(checkResponse(unauthorized)).toEqual([]);
        expect(unauthorized.status).toBe(401);
        expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');

        const posted = await fetch(`${server.baseUrl}/api/v1/loads`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
        expect(posted.status).toBe(405);
        expect(posted.headers.get('allow')).toBe('GET');
        await posted.body?.cancel();

        const contract = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
        expect(((await contract.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);

        const preflight = await fetch(`${server.baseUrl}/api/v1/loads`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);

        // The limited key's window is shared by the three servers: each of them spends it anew.
        let limited: Response | undefined;
        for (let request = 0; request < 4 && limited?.status !== 429; request += 1) {
          limited = await fetch(`${server.baseUrl}/api/v1/loads?pageSize=1`, { headers: { authorization: `Bearer ${limitedKey}` } });
          await limited.body?.cancel();
        }
        expect(limited!.status).toBe(429);
        expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

        stopped = true;
        expect(await server.stop(), server.output()).toBe(0);
      } finally {
        if (!stopped) await server.stop();
      }
    });
  }
});
