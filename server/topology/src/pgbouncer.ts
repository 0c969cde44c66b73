// PgBouncer (Debian's `pgbouncer`) in front of PostgreSQL, in the mode operators run: transaction
// pooling. It runs in the foreground as a child of this process, with its configuration, log and pid
// file in a folder of its own. Trust authentication on loopback only: a throwaway topology, not a
// deployment's security.
import type { ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { chownToRunAs } from './processes.js';
import { join } from 'node:path';
import { freePort, ownedFolder, requireProgram, spawnUnprivileged, stopChild, waitForPort } from './processes.js';

export interface PgBouncerDatabase {
  /** The name clients ask for; `*` forwards any name to the same name upstream. */
  name: string;
  port: number;
  /** The upstream database's name; absent: the name clients ask for. */
  dbname?: string;
  /** Credentials PgBouncer logs in with upstream (a PostgreSQL that asks for a password); absent: trust. */
  user?: string;
  password?: string;
}

export interface PgBouncerOptions {
  databases: PgBouncerDatabase[];
  poolMode?: 'session' | 'transaction';
  /** Server connections per database and user. */
  poolSize?: number;
  port?: number;
}

export interface PgBouncer {
  port: number;
  /** A connection string for `database` through the pooler, as the `postgres` user. */
  urlOf(database: string): string;
  /** The pooler's log so far (for a failing test's message). */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export async function startPgBouncer({ databases, poolMode = 'transaction', poolSize = 20, port }: PgBouncerOptions): Promise<PgBouncer> {
  requireProgram('pgbouncer', 'pgbouncer');
  const folder = await ownedFolder('loadfeed-pgbouncer-');
  const listenPort = port ?? (await freePort());
  const ini = join(folder, 'pgbouncer.ini');
  await writeFile(join(folder, 'userlist.txt'), '"postgres" ""\n', { mode: 0o600 });
  await writeFile(
    ini,
    [
      '[databases]',
      ...databases.map(
        ({ name, port: upstream, dbname, user, password }) =>
          `${name} = host=127.0.0.1 port=${upstream}${dbname ? ` dbname=${dbname}` : ''}${user ? ` user=${user}` : ''}${password ? ` password=${password}` : ''}`,
      ),
      '',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${listenPort}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(folder, 'userlist.txt')}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      // node-postgres sends none of these today; drivers that do would otherwise be refused.
      'ignore_startup_parameters = extra_float_digits,options',
      // A PostgreSQL that is down is reported to the client within seconds, not after minutes of waiting.
      'server_connect_timeout = 2',
      'server_login_retry = 1',
      'query_wait_timeout = 5',
      `logfile = ${join(folder, 'pgbouncer.log')}`,
      `pidfile = ${join(folder, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
    // It may hold a password: only PgBouncer's user reads it.
    { mode: 0o600 },
  );
  if (process.getuid?.() === 0) await chownToRunAs(ini, join(folder, 'userlist.txt'));
  const child: ChildProcess = spawnUnprivileged('pgbouncer', ['-q', ini]);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const log = () => readFile(join(folder, 'pgbouncer.log'), 'utf8').catch(() => '');
  try {
    await Promise.race([
      waitForPort(listenPort, { what: 'PgBouncer', timeoutMs: 15_000 }),
      new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`pgbouncer exited with ${String(code)}: ${output}`)))),
    ]);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}\n${await log()}`);
  }
  return {
    port: listenPort,
    urlOf: (database) => `postgres://postgres@127.0.0.1:${listenPort}/${database}`,
    log,
    stop: async () => {
      // SIGINT waits for clients to finish; SIGTERM (immediate) is for a topology being torn down.
      await stopChild(child, 'SIGTERM');
      await rm(folder, { recursive: true, force: true });
    },
  };
}
