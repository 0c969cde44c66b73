// What the runtime matrix shares: the runtimes scripts/runtimes.mjs installs, the SDK as a customer gets
// it (the packed tarballs of @loadfeed/spec and @loadfeed/sdk installed into an empty project outside the
// checkout, as examples/test/packed-install.test.ts does for every package), programs run to their end,
// and the feed as the server serves it, read page by page without the SDK.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadPage } from '@loadfeed/spec';

export const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url));

export type RuntimeName = 'node22' | 'node24' | 'node26' | 'bun' | 'deno' | 'workerd';

/** The path of each runtime's binary, installed first if missing (scripts/runtimes.mjs). */
export function installedRuntimes(): Record<RuntimeName, string> {
  const printed = execFileSync(process.execPath, [join(CHECKOUT, 'scripts', 'runtimes.mjs'), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(printed) as Record<RuntimeName, string>;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (at most `timeoutMs`), with this process's environment and `env`. */
export function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Starts a long-running program; `stop` ends it (by its process id) and waits for it. */
export function startProgram(command: string, args: string[], options: { cwd: string }): { output: () => string; stop: () => Promise<void> } {
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await ended;
    },
  };
}

/** A loopback port that was free a moment ago (for a program that cannot be told to pick one and say which). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What each runtime runs: the same sync with the packed SDK (`sync.mjs`), and what it saw, as JSON. */
const SYNC = `// A first page, then syncLoads into memory, with the SDK as installed from its tarball.
import { createClient, memoryCursorStore, syncLoads } from '@loadfeed/sdk';

export async function syncEverything(baseUrl, apiKey) {
  const client = createClient({ baseUrl, apiKey });
  const first = await client.listLoads({ pageSize: 5 });
  const copy = new Map();
  const upsert = (rows) => {
    for (const row of rows) copy.set(row.loadNumber, row);
  };
  const summary = await syncLoads({ client, pageSize: 100, cursorStore: memoryCursorStore(), upsert });
  const { limit, remaining } = client.quota();
  return { totalCount: first.totalCount, pages: summary.pages, cursor: summary.cursor, limit, remaining, rows: [...copy.values()] };
}
`;
/**
 * Node, Bun and Deno: the base URL and key from the environment, the result on stdout; the cursor then
 * saved with fileCursorStore and read back by another, which only the `node` export condition's entry
 * has (Bun and Deno must resolve it as Node does).
 */
const MAIN = `import { fileCursorStore } from '@loadfeed/sdk';
import { syncEverything } from './sync.mjs';
const result = await syncEverything(process.env.LOADFEED_BASE_URL, process.env.LOADFEED_API_KEY);
await fileCursorStore(process.env.LOADFEED_CURSOR_FILE).save(result.cursor);
const savedCursor = await fileCursorStore(process.env.LOADFEED_CURSOR_FILE).load();
console.log(JSON.stringify({ ...result, savedCursor }));
`;
/**
 * Node, Bun and Deno: \`--sqlite\`'s destination, with no better-sqlite3 installed: a sync into the file, a
 * second one that finds nothing new, and verifyCopy's report of the copy, as JSON.
 */
const SQLITE = `import { createClient, syncLoads, verifyCopy } from '@loadfeed/sdk';
import { openSqliteDestination } from '@loadfeed/sdk/destinations';

const client = createClient({ baseUrl: process.env.LOADFEED_BASE_URL, apiKey: process.env.LOADFEED_API_KEY });
const path = process.env.LOADFEED_SQLITE;
const syncOnce = async () => {
  const destination = await openSqliteDestination(path);
  try {
    return await syncLoads({ client, destination, pageSize: 100 });
  } finally {
    await destination.close();
  }
};
const first = await syncOnce();
const second = await syncOnce();
const copy = await openSqliteDestination(path, { write: false });
const report = await verifyCopy({ client, copy });
await copy.close();
console.log(JSON.stringify({ first: first.rows, second: second.rows, cursor: second.cursor, report }));
`;
/** workerd: a worker whose every request runs the sync (base URL and key are bindings). */
const WORKER = `import { syncEverything } from './sync.mjs';
export default {
  async fetch(request, env) {
    try {
      return Response.json(await syncEverything(env.LOADFEED_BASE_URL, env.LOADFEED_API_KEY));
    } catch (error) {
      return Response.json({ error: String(error && error.stack ? error.stack : error) }, { status: 500 });
    }
  },
};
`;
/** Chromium: the page's script; the base URL and key come in the page's query string. */
const PAGE = `import { syncEverything } from './sync.mjs';
const query = new URLSearchParams(location.search);
window.outcome = syncEverything(query.get('baseUrl'), query.get('key')).then(
  (result) => {
    document.body.textContent = 'Requests left this minute: ' + result.remaining + ' of ' + result.limit;
    return result;
  },
  (error) => ({ error: error.name + ': ' + error.message }),
);
`;

/** Programs kept as files of their own in ./programs/ (the SQLite destination's guarantees, sqlite-guarantees.mjs), copied into the project. */
const PROGRAM_FILES = ['sqlite-guarantees.mjs', 'sqlite-connection.mjs', 'hold-write-lock.mjs'];

export interface PackedProject {
  /** The project's folder: node_modules/@loadfeed/{spec,sdk} from the tarballs, and the programs above. */
  path: string;
  remove(): Promise<void>;
}

/** Packs @loadfeed/spec and @loadfeed/sdk and installs the tarballs into an empty project in the temp folder. */
export async function packedProject(): Promise<PackedProject> {
  const outside = await mkdtemp(join(tmpdir(), 'loadfeed-runtimes-'));
  const packs = join(outside, 'packs');
  const path = join(outside, 'customer-project');
  await mkdir(packs);
  await mkdir(path);
  const npmEnv = { npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
  const packed = await run('npm', ['pack', '-w', '@loadfeed/spec', '-w', '@loadfeed/sdk', '--pack-destination', packs, '--silent'], { cwd: CHECKOUT, env: npmEnv, timeoutMs: 120_000 });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  await writeFile(join(path, 'package.json'), `${JSON.stringify({ name: 'customer-project', private: true, type: 'module' }, null, 2)}\n`);
  const tarballs = (await readdir(packs)).map((name) => join(packs, name));
  // Outside the checkout: npm's settings from `npm test` (the workspace's) must not reach this install.
  const ownEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || name === 'npm_config_cache'));
  const installed = await new Promise<RunResult>((resolve) =>
    execFile('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], { cwd: path, env: { ...ownEnv, ...npmEnv } }, (error, stdout, stderr) =>
      resolve({ code: error ? 1 : 0, stdout, stderr }),
    ),
  );
  if (installed.code !== 0) throw new Error(`npm install of the tarballs failed:\n${installed.stderr}`);
  for (const [name, text] of Object.entries({ 'sync.mjs': SYNC, 'main.mjs': MAIN, 'sqlite.mjs': SQLITE, 'worker.mjs': WORKER, 'page.mjs': PAGE })) await writeFile(join(path, name), text);
  for (const name of PROGRAM_FILES) await copyFile(new URL(`./programs/${name}`, import.meta.url), join(path, name));
  return { path, remove: () => rm(outside, { recursive: true, force: true }) };
}

/** What a sync copied, as the tests compare it: the rows, in the order of their load numbers. */
export interface SyncResult {
  totalCount: number;
  pages: number;
  cursor: string | undefined;
  limit: number | undefined;
  remaining: number | undefined;
  rows: Array<{ loadNumber: string }>;
}

export const byLoadNumber = <Row extends { loadNumber: string }>(rows: Row[]): Row[] => [...rows].sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : a.loadNumber > b.loadNumber ? 1 : 0));

/** Every load the server serves the key, page by page with fetch alone, in load-number order. */
export async function feedOf(baseUrl: string, apiKey: string): Promise<LoadPage['data']> {
  const rows: LoadPage['data'] = [];
  for (let page = 1; ; page += 1) {
    const response = await fetch(`${baseUrl}/api/v1/loads?pageSize=100&page=${page}`, { headers: { Authorization: `Bearer ${apiKey}` } });
    if (response.status !== 200) throw new Error(`the feed answered ${response.status}`);
    const body = (await response.json()) as LoadPage;
    rows.push(...body.data);
    if (!body.hasMore) return byLoadNumber(rows);
  }
}
