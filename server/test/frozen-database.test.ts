// A PostgreSQL whose processes are stopped (SIGSTOP on the postmaster and its backends) accepts
// connections and answers nothing: without a client-side deadline a request in flight hung for as long
// as it stayed frozen. This one runs a PostgreSQL of its own, never the one other tests share.
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedPostgres, type HostedPostgres } from '../src/db/hosted-postgres.js';
import { asChecked, startAppWithKey, type TestApp } from './support/app.js';

/** The postmaster's pid, then every process whose parent it is (its backends and helpers). */
async function postgresProcesses(dataDir: string): Promise<number[]> {
  const postmaster = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === postmaster) children.push(Number(entry));
  }
  return [postmaster, ...children];
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // A backend that ended in the meantime.
    }
  }
}

describe.skipIf(process.platform !== 'linux')('a frozen database', () => {
  let folder: string;
  let postgres: HostedPostgres;
  let app: TestApp;
  let key: string;
  let frozen: number[] = [];

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'loadfeed-frozen-pg-'));
    await chmod(folder, 0o755);
    postgres = await startHostedPostgres(join(folder, 'data'));
    ({ app, key } = await startAppWithKey(postgres.url, { env: { DB_STATEMENT_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_MS: '1000' } }));
  });
  afterAll(async () => {
    signalAll(frozen, 'SIGCONT');
    await app?.close();
    await postgres?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('ends a request in flight with the 500 error body within the statement timeout and a second, and recovers when it thaws', async () => {
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(200);
    // The postmaster first, so that it forks nothing after its children are listed.
    const [postmaster] = await postgresProcesses(join(folder, 'data'));
    process.kill(postmaster!, 'SIGSTOP');
    frozen = await postgresProcesses(join(folder, 'data'));
    signalAll(frozen, 'SIGSTOP');
    try {
      const started = Date.now();
      const response = await app.get('/api/v1/loads', key);
      const waited = Date.now() - started;
      expect(response.statusCode).toBe(500);
      expect(checkResponse(asChecked(response))).toEqual([]);
      // DB_STATEMENT_TIMEOUT_MS=1000: a 2 s deadline on the call in flight.
      expect(waited).toBeLessThan(4_000);
      const cause = app.logLines.map((line) => JSON.parse(line) as { requestId?: string; level: number; err?: { message: string } })
        .find((line) => line.requestId === response.headers['x-request-id'] && line.err);
      expect(cause).toMatchObject({ level: 50, err: { message: expect.stringMatching(/timeout/i) } });
      // A new connection to it: DB_CONNECT_TIMEOUT_MS=1000.
      const next = Date.now();
      expect((await app.get('/api/v1/loads', key)).statusCode).toBe(500);
      expect(Date.now() - next).toBeLessThan(3_000);
      expect((await app.get('/readyz')).statusCode).toBe(503);
    } finally {
      signalAll(frozen, 'SIGCONT');
      frozen = [];
    }
    let status = 0;
    for (let attempt = 0; attempt < 10 && status !== 200; attempt += 1) status = (await app.get('/api/v1/loads', key)).statusCode;
    expect(status).toBe(200);
  });
});
