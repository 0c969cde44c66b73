// The runtime matrix: the SDK as a customer installs it (the packed tarballs) runs the same program in
// every runtime the README names (Node 20 (this one), 22, 24 and 26, Bun, Deno, workerd without
// nodejs_compat, Chromium), against the real reference server listening on a free loopback port: a first
// page, then syncLoads into memory, and the copy must be the feed, row for row. workerd and Chromium run
// an esbuild bundle of it, as an application's build would make one (the web entry: no Node module).
// Chromium's page comes from another origin, which the server lists in CORS_ORIGINS, and shows the
// requests left; from an origin not listed, the browser refuses the page the answer.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSqlite } from '../cli/copies.js';
import { row } from '../destinations/rows.js';
import { expectSqliteGuarantees, T1, T2, type SqliteGuarantees } from './sqlite-guarantees.js';
import { byLoadNumber, feedOf, freePort, installedRuntimes, packedProject, run, startProgram, type PackedProject, type RuntimeName, type SyncResult } from './support.js';

const LOADS = 250;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Past the newest workerd's compatibility dates would refuse to start; this one is within 1.20261117.1's. */
const WORKERD_COMPATIBILITY_DATE = '2026-11-01';

/** The project's program bundled for a platform without Node's modules (workerd, a browser). */
async function bundle(project: PackedProject, entry: string, conditions: string[]): Promise<string> {
  const result = await build({ entryPoints: [join(project.path, entry)], bundle: true, format: 'esm', platform: 'neutral', conditions, write: false, logLevel: 'silent' });
  return result.outputFiles[0]!.text;
}

describe('the packed SDK in every runtime, against the reference server', () => {
  const database = useTestDatabase();
  let runtimes: Record<RuntimeName, string>;
  let project: PackedProject;
  let reference: TestServer;
  let key: string;
  let feed: Awaited<ReturnType<typeof feedOf>>;
  /** The page's files, served on a loopback port: as http://localhost:<port> (listed) and http://127.0.0.1:<port> (not). */
  let pages: Server;
  const pageFiles: Record<string, string> = {};
  let listedOrigin: string;
  let unlistedOrigin: string;

  beforeAll(async () => {
    runtimes = installedRuntimes();
    project = await packedProject();
    pages = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const body = pageFiles[path];
      if (body === undefined) return void response.writeHead(404).end();
      response.writeHead(200, { 'Content-Type': `${path.endsWith('.js') ? 'text/javascript' : 'text/html'}; charset=utf-8` }).end(body);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    const { port } = pages.address() as AddressInfo;
    listedOrigin = `http://localhost:${port}`;
    unlistedOrigin = `http://127.0.0.1:${port}`;
    reference = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: 1_000_000, corsOrigins: [listedOrigin] });
    await reference.createCustomer('acme');
    await reference.seedLoads('acme', { count: LOADS });
    key = (await reference.createKey('acme')).key;
    feed = await feedOf(reference.baseUrl, key);
    expect(feed.length).toBeGreaterThan(200);
  }, 180_000);
  afterAll(async () => {
    await reference?.stop();
    await new Promise((resolve) => pages?.close(resolve));
    await project?.remove();
  });

  /** Deno's permissions for a program that reaches the server and reads and writes files in the project. */
  const denoAllowed = () => ['run', '--no-prompt', `--allow-net=${new URL(reference.baseUrl).host}`, '--allow-env', `--allow-read=${project.path}`, `--allow-write=${project.path}`];
  /** The runtimes with a SQLite of their own, and how each runs a program of the project. */
  const builtInSqlite = () =>
    [
      ['node22', runtimes.node22, []],
      ['node24', runtimes.node24, []],
      ['node26', runtimes.node26, []],
      ['bun', runtimes.bun, []],
      ['deno', runtimes.deno, denoAllowed()],
    ] as const;

  function expectTheFeed(result: SyncResult, runtime: string): void {
    expect(result.totalCount, runtime).toBe(feed.length);
    expect(result.pages, runtime).toBe(Math.ceil(feed.length / 100));
    expect(byLoadNumber(result.rows), runtime).toEqual(feed);
  }

  async function runMain(runtime: string, command: string, args: string[]): Promise<void> {
    const cursorFile = join(project.path, `${runtime}-cursor.json`);
    const env = { LOADFEED_BASE_URL: reference.baseUrl, LOADFEED_API_KEY: key, LOADFEED_CURSOR_FILE: cursorFile, DENO_NO_UPDATE_CHECK: '1' };
    const result = await run(command, [...args, 'main.mjs'], { cwd: project.path, env });
    expect(result.code, `${runtime}:\n${result.stderr}`).toBe(0);
    const outcome = JSON.parse(result.stdout) as SyncResult & { savedCursor: string };
    expectTheFeed(outcome, runtime);
    // fileCursorStore (the `node` entry's alone) wrote the cursor to the file and another read it back.
    expect(outcome.cursor, runtime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(outcome.savedCursor, runtime).toBe(outcome.cursor);
    expect((JSON.parse(await readFile(cursorFile, 'utf8')) as { cursor: string }).cursor, runtime).toBe(outcome.cursor);
  }

  it('Node 20 (the one running the tests), 22, 24 and 26', async () => {
    for (const [runtime, node] of [['node20', process.execPath], ['node22', runtimes.node22], ['node24', runtimes.node24], ['node26', runtimes.node26]] as const) {
      const version = await run(node, ['--version'], { cwd: project.path });
      expect(version.stdout, runtime).toMatch(new RegExp(`^v${runtime.slice(4)}\\.`));
      await runMain(runtime, node, []);
    }
  });

  it('Bun', async () => {
    await runMain('bun', runtimes.bun, []);
  });

  it('Deno, with network access to the server alone; without it, Deno\'s refusal at once, not retried as a ConnectionError', async () => {
    await runMain('deno', runtimes.deno, denoAllowed());
    const env = { LOADFEED_BASE_URL: reference.baseUrl, LOADFEED_API_KEY: key, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
    const denied = await run(runtimes.deno, ['run', '--no-prompt', '--allow-env', 'main.mjs'], { cwd: project.path, env });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/NotCapable: Requires net access to "127\.0\.0\.1:\d+", run again with the --allow-net flag/);
    expect(denied.stderr).not.toContain('ConnectionError');
    // The command line names the refusal and the grant, as an expected failure: not "unexpected error", not retried.
    const host = new URL(reference.baseUrl).host;
    const cli = await run(runtimes.deno, ['run', '--no-prompt', '--allow-env', `--allow-read=${project.path}`, join('node_modules', '@loadfeed', 'sdk', 'bin', 'loadfeed.js'), 'list'], { cwd: project.path, env });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(`loadfeed: Deno denied net access to ${host}, which the command needs: run it again with --allow-net=${host}\n`);
  });

  it("--sqlite's destination on the runtime's own SQLite: node:sqlite on Node 22, 24 and 26 and Deno, bun:sqlite on Bun; Node 20 without better-sqlite3 says to install it", async () => {
    const deno = denoAllowed();
    for (const [runtime, command, args] of builtInSqlite()) {
      const path = join(project.path, `${runtime}.db`);
      const env = { LOADFEED_BASE_URL: reference.baseUrl, LOADFEED_API_KEY: key, LOADFEED_SQLITE: path, DENO_NO_UPDATE_CHECK: '1' };
      const result = await run(command, [...args, 'sqlite.mjs'], { cwd: project.path, env });
      expect(result.code, `${runtime}:\n${result.stderr}`).toBe(0);
      // Node 22's ExperimentalWarning about node:sqlite included: nothing reaches the user's terminal.
      expect(result.stderr, runtime).toBe('');
      const { first, cursor, report } = JSON.parse(result.stdout) as { first: number; cursor: string; report: { served: number; equal: number; missing: number; differing: number } };
      expect(first, runtime).toBe(feed.length);
      expect(report, runtime).toMatchObject({ served: feed.length, equal: feed.length, missing: 0, differing: 0 });
      // The same table layout as better-sqlite3 writes, read back by it here (Node 20).
      const copy = readSqlite(path);
      expect(copy.loads, runtime).toEqual(feed);
      expect(Object.keys(copy.loads[0]!), runtime).toEqual(Object.keys(feed[0]!));
      expect(copy.cursor, runtime).toBe(cursor);
    }
    // The command line too, where better-sqlite3 could not be: Bun (not supported there) and Deno (no N-API addon).
    for (const [runtime, command, args] of [['bun', runtimes.bun, []], ['deno', runtimes.deno, deno]] as const) {
      const env = { LOADFEED_BASE_URL: reference.baseUrl, LOADFEED_API_KEY: key, DENO_NO_UPDATE_CHECK: '1' };
      const cli = await run(command, [...args, join('node_modules', '@loadfeed', 'sdk', 'bin', 'loadfeed.js'), 'sync', '--sqlite', `${runtime}-cli.db`], { cwd: project.path, env });
      expect(cli.code, `${runtime}:\n${cli.stderr}`).toBe(0);
      expect(cli.stdout, runtime).toMatch(new RegExp(`^synced ${feed.length} rows in \\d+ requests`));
      expect(readSqlite(join(project.path, `${runtime}-cli.db`)).loads, runtime).toEqual(feed);
    }
    const env = { LOADFEED_BASE_URL: reference.baseUrl, LOADFEED_API_KEY: key, LOADFEED_SQLITE: join(project.path, 'node20.db') };
    const node20 = await run(process.execPath, ['sqlite.mjs'], { cwd: project.path, env });
    expect(node20.code).not.toBe(0);
    expect(node20.stderr).toContain('--sqlite needs the optional package better-sqlite3: run `npm install better-sqlite3@12.11.1`');
  });

  it("the SQLite destination's guarantees on node:sqlite (Node 22, 24, 26, Deno) and bun:sqlite (Bun), as test/destinations/ checks them on better-sqlite3", async () => {
    const checked = await Promise.all(
      builtInSqlite().map(async ([runtime, command, args]) => {
        const folder = join(project.path, `${runtime}-guarantees`);
        await mkdir(folder);
        const result = await run(command, [...args, 'sqlite-guarantees.mjs'], { cwd: project.path, env: { LOADFEED_FOLDER: folder, DENO_NO_UPDATE_CHECK: '1' } });
        expect(result.code, `${runtime}:\n${result.stderr}`).toBe(0);
        // SQLite's own failure, named with its code as better-sqlite3's is (failure.test.ts), not an unexpected error.
        await writeFile(join(folder, 'not-sqlite.db'), 'my notes, not a database\n'.repeat(200));
        const env = { LOADFEED_BASE_URL: reference.baseUrl, LOADFEED_API_KEY: key, DENO_NO_UPDATE_CHECK: '1' };
        const cli = await run(command, [...args, join('node_modules', '@loadfeed', 'sdk', 'bin', 'loadfeed.js'), 'sync', '--sqlite', join(folder, 'not-sqlite.db')], { cwd: project.path, env });
        expect(cli.stderr, runtime).toBe('loadfeed: SQLite: file is not a database (SQLITE_NOTADB)\n');
        return [runtime, folder, JSON.parse(result.stdout) as Record<string, unknown>] as const;
      }),
    );
    for (const [runtime, folder, outcome] of checked) {
      for (const [check, found] of Object.entries(outcome)) expect((found as { failed?: string }).failed, `${runtime} ${check}`).toBeUndefined();
      expectSqliteGuarantees(runtime, outcome as unknown as SqliteGuarantees);
      // The file each driver wrote, read by better-sqlite3 here (Node 20): one layout whichever wrote it.
      expect(readSqlite(join(folder, 'older.db')), runtime).toEqual({ loads: [row(1, T2, { status: 'Delivered' }), row(2, T1)], cursor: T2 });
    }
  });

  it('workerd without nodejs_compat, from a one-file bundle', async () => {
    await writeFile(join(project.path, 'worker.js'), await bundle(project, 'worker.mjs', ['workerd', 'worker', 'browser']));
    const port = await freePort();
    const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # The default outbound service refuses private addresses; the reference server is on loopback.
    (name = "loopback", network = (allow = ["local", "private", "public"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "${WORKERD_COMPATIBILITY_DATE}",
  bindings = [ (name = "LOADFEED_BASE_URL", text = "${reference.baseUrl}"), (name = "LOADFEED_API_KEY", text = "${key}") ],
  globalOutbound = "loopback",
);
`;
    expect(config).not.toContain('nodejs_compat');
    await writeFile(join(project.path, 'workerd.capnp'), config);
    const workerd = startProgram(runtimes.workerd, ['serve', 'workerd.capnp'], { cwd: project.path });
    try {
      let response: Response | undefined;
      for (let attempt = 0; attempt < 100 && response === undefined; attempt += 1) {
        response = await fetch(`http://127.0.0.1:${port}/`).catch(async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          return undefined;
        });
      }
      expect(response, `workerd did not answer:\n${workerd.output()}`).toBeDefined();
      const body = (await response!.json()) as SyncResult & { error?: string };
      expect(body.error, 'workerd').toBeUndefined();
      expectTheFeed(body, 'workerd');
    } finally {
      await workerd.stop();
    }
  });

  describe('Chromium, from a page of another origin (CORS)', () => {
    let browser: Browser;
    beforeAll(async () => {
      pageFiles['/page.js'] = await bundle(project, 'page.mjs', ['browser']);
      pageFiles['/'] = '<!doctype html><meta charset="utf-8"><title>sync</title><body>syncing</body><script type="module" src="/page.js"></script>';
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function openPage(origin: string): Promise<{ outcome: SyncResult & { error?: string }; text: string }> {
      const page = await browser.newPage();
      try {
        await page.goto(`${origin}/?${new URLSearchParams({ baseUrl: reference.baseUrl, key })}`);
        const outcome = await page.evaluate(() => (globalThis as unknown as { outcome: Promise<SyncResult & { error?: string }> }).outcome);
        return { outcome, text: (await page.textContent('body')) ?? '' };
      } finally {
        await page.close();
      }
    }

    it('a listed origin syncs the feed and shows the requests left, read from the rate-limit headers', async () => {
      const { outcome, text } = await openPage(listedOrigin);
      expect(outcome.error).toBeUndefined();
      expectTheFeed(outcome, 'chromium');
      expect(outcome.limit).toBe(1_000_000);
      expect(outcome.remaining).toBeLessThan(1_000_000);
      expect(text).toBe(`Requests left this minute: ${outcome.remaining} of 1000000`);
    });

    it('the same page from an origin the server does not list is refused by the browser', async () => {
      const { outcome, text } = await openPage(unlistedOrigin);
      expect(outcome.error).toMatch(/^ConnectionError: /);
      expect(text).toBe('syncing');
    });
  });

  it('the bundles hold no Node module', async () => {
    const worker = await readFile(join(project.path, 'worker.js'), 'utf8').catch(() => '');
    for (const code of [worker, pageFiles['/page.js'] ?? '']) {
      expect(code.length).toBeGreaterThan(10_000);
      expect(code).not.toMatch(/["']node:/);
    }
  });
});
