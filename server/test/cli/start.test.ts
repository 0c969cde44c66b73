import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { CLI, cliEnv, cliOk, exited } from './run-cli.js';

const READY = /listening on (http:\/\/\S+)/;
const EXPORTED = /^ {4}export DATABASE_URL='(postgres:\/\/[^']+)'$/m;

/** The DATABASE_URL a start's banner tells the operator to export. */
function exportedBy(output: string): string {
  const exported = EXPORTED.exec(output);
  if (!exported) throw new Error(`no export line in the banner:\n${output}`);
  return exported[1]!;
}
const KEY = /lf_live_[0-9A-Za-z]{38}/;

interface Started {
  child: ChildProcess;
  baseUrl: string;
  /** stderr so far: the human-readable lines. */
  output(): string;
  exit: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** `loadfeed-server start` in a process group of its own, as a terminal runs it, once it listens. */
async function start(env: NodeJS.ProcessEnv, args: string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [CLI, 'start', ...args], { env: cliEnv({ PORT: '0', ...env }), detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  const exit = exited(child).finally(() => running.delete(child));
  let output = '';
  child.stderr!.setEncoding('utf8');
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      output += chunk;
      // The whole banner, which ends with how to stop it, not only its ready line.
      const ready = READY.exec(output);
      if (ready && output.includes('Stop with Ctrl-C.')) resolve(ready[1]!);
    });
    void exit.then((code) => reject(new Error(`start exited with ${code} before listening: ${output}`)));
  });
  return { child, baseUrl, output: () => output, exit };
}

/** What a terminal's Ctrl-C does: SIGINT to every process of the foreground group. */
function interruptGroup(child: ChildProcess): void {
  process.kill(-child.pid!, 'SIGINT');
}

async function firstPage(baseUrl: string, key: string): Promise<{ status: number; body: { data: { loadNumber: string }[]; totalCount: number } }> {
  const response = await fetch(`${baseUrl}/api/v1/loads?pageSize=100`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as { data: { loadNumber: string }[]; totalCount: number } };
}

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

describe('loadfeed-server start on an embedded PostgreSQL', () => {
  let dataDir: string;
  let key: string;
  let firstExport: string;
  let served: Awaited<ReturnType<typeof firstPage>>['body'];

  beforeAll(async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loadfeed-start-'));
    await chmod(folder, 0o755); // the postgres user must reach the cluster inside it when tests run as root
    dataDir = join(folder, 'data');
  });
  afterAll(async () => {
    if (dataDir) await rm(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('on a fresh data folder migrates, adds demo loads and prints a demo key with a curl command that works', async () => {
    const server = await start({ LOADFEED_DATA_DIR: dataDir });
    const curl = /curl -H "Authorization: Bearer (lf_live_\w+)" "(http:\/\/[^"]+)"/.exec(server.output());
    expect(curl, server.output()).not.toBeNull();
    key = curl![1]!;
    firstExport = exportedBy(server.output());
    expect(curl![2]).toBe(`${server.baseUrl}/api/v1/loads?pageSize=5`);
    const response = await fetch(curl![2]!, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(5);
    const page = await firstPage(server.baseUrl, key);
    served = page.body;
    expect(served.totalCount).toBeGreaterThan(200);
    // The banner counts what the feed serves, not only what was written.
    expect(server.output()).toContain(`with demo customer "demo" and 300 loads, ${served.totalCount} of them picking up inside the feed's 12-month window`);

    interruptGroup(server.child);
    expect(await server.exit).toBe(0);
    expect(server.output()).toMatch(/SIGINT received, stopping[\s\S]*stopped/);
  }, 120_000);

  it('after Ctrl-C, a restart on the same folder serves the same loads and prints no new key', async () => {
    const server = await start({ LOADFEED_DATA_DIR: dataDir });
    expect(server.output()).not.toMatch(KEY);
    expect(server.output()).toContain('--new-demo-key');
    expect(await firstPage(server.baseUrl, key)).toEqual({ status: 200, body: served });

    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
  }, 60_000);

  it('a second start on the same folder says at once which server holds it; the banner and the other commands say how to reach its database', async () => {
    const server = await start({ LOADFEED_DATA_DIR: dataDir });
    try {
      const began = Date.now();
      const second = spawn(process.execPath, [CLI, 'start'], { env: cliEnv({ LOADFEED_DATA_DIR: dataDir, PORT: '0' }), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      second.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      expect(await exited(second)).toBe(1);
      expect(Date.now() - began).toBeLessThan(5_000);
      expect(stderr).toBe(
        `loadfeed-server: another loadfeed-server (pid ${server.child.pid}, listening on ${server.baseUrl}) is running on the embedded PostgreSQL in ${dataDir}: ` +
          `stop it first (Ctrl-C in its terminal, or kill ${server.child.pid}), or give this one another LOADFEED_DATA_DIR or a DATABASE_URL\n`,
      );

      const exported = exportedBy(server.output());
      const customers = JSON.parse(await cliOk(['customers', 'list', '--json'], { env: { DATABASE_URL: exported } })) as { code: string }[];
      expect(customers.map((customer) => customer.code)).toEqual(['demo']);
      const withoutDatabase = spawn(process.execPath, [CLI, 'customers', 'list'], { env: cliEnv({ LOADFEED_DATA_DIR: dataDir }), stdio: ['ignore', 'ignore', 'pipe'] });
      let hint = '';
      withoutDatabase.stderr!.setEncoding('utf8').on('data', (chunk: string) => (hint += chunk));
      expect(await exited(withoutDatabase)).toBe(1);
      expect(hint).toContain(`the loadfeed-server running here, pid ${server.child.pid}: export DATABASE_URL='${exported}'`);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
    }
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
  }, 60_000);

  it('after SIGTERM, a restart on the same folder serves the same loads, and --new-demo-key issues another key', async () => {
    const server = await start({ LOADFEED_DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '1000' }, ['--new-demo-key']);
    const another = KEY.exec(server.output())?.[0];
    expect(another).toBeDefined();
    expect(another).not.toBe(key);
    expect(await firstPage(server.baseUrl, another!)).toEqual({ status: 200, body: served });

    // Ctrl-C while requests are under way: the database stays up until they are answered, so none
    // gets a 500 (a request the server had not accepted yet may be refused instead).
    const requests = Array.from({ length: 30 }, () => firstPage(server.baseUrl, another!));
    await Promise.race(requests);
    interruptGroup(server.child);
    const answered = (await Promise.allSettled(requests)).filter((result) => result.status === 'fulfilled');
    expect(answered.length).toBeGreaterThan(0);
    for (const { value } of answered) expect(value).toEqual({ status: 200, body: served });
    expect(await server.exit).toBe(0);
  }, 60_000);

  it('killed outright (SIGKILL), it leaves no PostgreSQL behind, and the next start serves the same loads', async () => {
    const server = await start({ LOADFEED_DATA_DIR: dataDir });
    const pidFile = join(dataDir, 'embedded-postgres', 'postgres', 'postmaster.pid');
    expect(existsSync(pidFile)).toBe(true);
    server.child.kill('SIGKILL');
    await server.exit;
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(false), { timeout: 20_000, interval: 200 });

    const restarted = await start({ LOADFEED_DATA_DIR: dataDir });
    expect(await firstPage(restarted.baseUrl, key)).toEqual({ status: 200, body: served });
    restarted.child.kill('SIGTERM');
    expect(await restarted.exit).toBe(0);
  }, 60_000);

  it('keeps its port across restarts, so the DATABASE_URL printed at the first start still works; a port taken meanwhile is said, and the new one kept', async () => {
    const restarted = await start({ LOADFEED_DATA_DIR: dataDir });
    try {
      expect(exportedBy(restarted.output())).toBe(firstExport);
      expect(JSON.parse(await cliOk(['customers', 'list', '--json'], { env: { DATABASE_URL: firstExport } }))).toEqual([expect.objectContaining({ code: 'demo' })]);
    } finally {
      restarted.child.kill('SIGTERM');
      expect(await restarted.exit).toBe(0);
    }

    const port = Number(new URL(firstExport).port);
    const squatter = createTcpServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    let moved: string;
    try {
      const server = await start({ LOADFEED_DATA_DIR: dataDir });
      moved = exportedBy(server.output());
      expect(server.output()).toContain(`its port of the last start, ${port}, is taken by another program now`);
      expect(new URL(moved).port).not.toBe(String(port));
      expect(JSON.parse(await cliOk(['customers', 'list', '--json'], { env: { DATABASE_URL: moved } }))).toHaveLength(1);
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    const next = await start({ LOADFEED_DATA_DIR: dataDir });
    expect(exportedBy(next.output())).toBe(moved);
    expect(next.output()).not.toContain('is taken by another program');
    next.child.kill('SIGTERM');
    expect(await next.exit).toBe(0);
  }, 90_000);
});

describe('loadfeed-server start with DATABASE_URL', () => {
  const database = useTestDatabase();

  it('migrates the given database, adds no demo data, serves keys issued by the CLI and stops with 0 on SIGTERM', async () => {
    const env = { DATABASE_URL: database.url };
    const server = await start(env);
    expect(server.output()).toContain('database: DATABASE_URL');
    expect(server.output()).not.toMatch(KEY);
    expect(await cliOk(['customers', 'list', '--json'], { env })).toBe('[]\n');

    await cliOk(['customers', 'add', 'acme'], { env });
    const { key } = JSON.parse(await cliOk(['keys', 'create', 'acme', '--json'], { env })) as { key: string };
    expect(await firstPage(server.baseUrl, key)).toMatchObject({ status: 200, body: { data: [], totalCount: 0 } });

    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
  }, 60_000);

  it('exits 1 with a one-line reason when the port is taken', async () => {
    const env = { DATABASE_URL: database.url };
    const first = await start(env);
    const port = new URL(first.baseUrl).port;
    try {
      const child = spawn(process.execPath, [CLI, 'start'], { env: cliEnv({ ...env, PORT: port }), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      expect(await exited(child)).toBe(1);
      expect(stderr).toBe(`loadfeed-server: cannot listen on 127.0.0.1:${port}: the port is in use\n`);
    } finally {
      first.child.kill('SIGTERM');
      await first.exit;
    }
  }, 60_000);
});

/** The addresses (hex, as /proc/net/tcp writes them) that listen on `port` now. */
async function listeningAddresses(port: number): Promise<string[]> {
  const table = await readFile('/proc/net/tcp', 'utf8');
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
    .map((fields) => fields[1]!.split(':')[0]!);
}

describe('loadfeed-server start: the metrics listener', () => {
  const database = useTestDatabase();

  it.each([
    [{}, '127.0.0.1', '0100007F', ''],
    [{ METRICS_HOST: '0.0.0.0' }, '127.0.0.1', '00000000', ' (listening on 0.0.0.0: every interface, without a key)'],
  ])('with HOST=0.0.0.0 and %j listens where METRICS_HOST says (loopback by default), and the banner says so', async (env, shown, listening, note) => {
    const server = await start({ DATABASE_URL: database.url, HOST: '0.0.0.0', METRICS_PORT: '0', ...env });
    try {
      const line = /^ {2}metrics: http:\/\/([^:]+):(\d+)\/metrics(.*)$/m.exec(server.output());
      expect(line?.slice(1, 2)).toEqual([shown]);
      expect(line![3]).toBe(note);
      const port = Number(line![2]);
      expect(await listeningAddresses(port)).toEqual([listening]);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  }, 60_000);
});

describe('loadfeed-server start on a data folder it cannot run', () => {
  it('exits 1 with PostgreSQL\'s reason on one line', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loadfeed-start-broken-'));
    await chmod(folder, 0o755);
    try {
      const embedded = join(folder, 'embedded-postgres');
      await mkdir(join(embedded, 'postgres'), { recursive: true });
      await writeFile(join(embedded, 'postgres', 'PG_VERSION'), '99\n');
      await writeFile(join(embedded, 'credentials.json'), JSON.stringify({ password: 'unused' }));
      const child = spawn(process.execPath, [CLI, 'start'], { env: cliEnv({ LOADFEED_DATA_DIR: folder, PORT: '0' }), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      expect(await exited(child)).toBe(1);
      expect(stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^loadfeed-server: the embedded PostgreSQL in .* did not start: .*postgresql\.conf.*No such file or directory$/),
      ]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
