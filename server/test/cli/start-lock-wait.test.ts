// `start` while another connection holds the migration lock: it says so at once (who holds it), serves
// once the lock is free, and a SIGTERM during the wait stops it at once rather than after the lock is free.
import { spawn, type ChildProcess } from 'node:child_process';
import { PG_MIGRATE_LOCK_ID } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { CLI, cliEnv, exited } from './run-cli.js';

const WAITING = /waiting for the migration lock \(\d+\), which PostgreSQL backend (\d+) \(lock-holder\)/;

describe('start beside a connection that holds the migration lock', () => {
  const database = useTestDatabase();
  let holder: pg.Client;
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    await migrate(database.url);
  });
  afterEach(async () => {
    await holder?.end().catch(() => {});
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  async function holdLock(): Promise<number> {
    holder = new pg.Client({ connectionString: database.url, application_name: 'lock-holder' });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [PG_MIGRATE_LOCK_ID]);
    return (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  }

  function start(): { child: ChildProcess; exit: Promise<number | null>; until: (pattern: RegExp) => Promise<RegExpExecArray>; output: () => string } {
    const child = spawn(process.execPath, [CLI, 'start'], { env: cliEnv({ DATABASE_URL: database.url, PORT: '0' }), stdio: ['ignore', 'ignore', 'pipe'] });
    children.add(child);
    const exit = exited(child).finally(() => children.delete(child));
    let output = '';
    const waiters: (() => void)[] = [];
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (const waiter of waiters) waiter();
    });
    const until = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(output);
          if (found) resolve(found);
        };
        waiters.push(check);
        check();
        void exit.then(() => reject(new Error(`start exited before ${pattern}: ${output}`)));
      });
    return { child, exit, until, output: () => output };
  }

  it('says that it waits and who holds the lock, then serves once the lock is free', async () => {
    const pid = await holdLock();
    const server = start();
    const waiting = await server.until(WAITING);
    expect(Number(waiting[1])).toBe(pid);
    expect(server.output()).not.toContain('listening on');
    await holder.end();
    await server.until(/listening on http/);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
  }, 60_000);

  it('stops at once on SIGTERM while it waits, with 0, and leaves the lock to its holder', async () => {
    await holdLock();
    const server = start();
    await server.until(WAITING);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(server.output()).toContain('loadfeed-server: SIGTERM received while waiting for the migration lock; stopped');
    const { rows } = await holder.query<{ held: number }>("SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
    expect(rows[0]!.held).toBe(1);
  }, 60_000);
});
