// A PostgreSQL primary and its streaming standbys, made with Debian's PostgreSQL 15 programs (initdb,
// pg_ctl, pg_basebackup) in folders of their own under the system's temporary folder, on free loopback
// ports. Trust authentication on loopback only: a throwaway topology, not a deployment's security.
import { appendFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { POSTGRES_BIN, freePort, ownedFolder, requireProgram, runUnprivileged } from './processes.js';

export interface Cluster {
  port: number;
  dataDir: string;
  /** A connection string for `database` as the `postgres` superuser. */
  urlOf(database?: string): string;
  /** Starts it again after `stop()`; waits until it accepts connections. */
  start(): Promise<void>;
  /** A fast shutdown (sessions are ended), waiting until it is down. */
  stop(): Promise<void>;
  /** Runs one statement as the superuser on `database` (default `postgres`). */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string, values?: unknown[], database?: string): Promise<R[]>;
}

export interface Primary extends Cluster {
  /** A new streaming standby of this primary (pg_basebackup), started and replaying. */
  addStandby(): Promise<Standby>;
  /** Stops it and its standbys, and removes their folders. */
  destroy(): Promise<void>;
}

export interface Standby extends Cluster {
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once it has replayed the primary's WAL as it is now. */
  caughtUp(): Promise<void>;
  /** Ends recovery: it becomes a primary of its own, no longer following. */
  promote(): Promise<void>;
}

// Small enough for a busy test machine; hot_standby_feedback keeps the primary's vacuum from removing
// rows a standby's page read still needs (which would cancel the read).
const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  'max_connections = 200',
  'shared_buffers = 64MB',
  'wal_level = replica',
  'max_wal_senders = 8',
  'wal_keep_size = 256MB',
  'hot_standby = on',
  'hot_standby_feedback = on',
  "log_min_messages = 'warning'",
];

function clusterOf(folder: string, dataDir: string, port: number): Cluster {
  const pgCtl = (...args: string[]) => runUnprivileged(join(POSTGRES_BIN, 'pg_ctl'), ['-D', dataDir, ...args]);
  const urlOf = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    dataDir,
    urlOf,
    start: async () => {
      await pgCtl('-l', join(folder, `postgres-${port}.log`), '-w', '-t', '120', 'start');
    },
    stop: async () => {
      await pgCtl('-m', 'fast', '-w', '-t', '60', 'stop');
    },
    sql: async <R extends pg.QueryResultRow>(statement: string, values: unknown[] = [], database = 'postgres') => {
      const client = new pg.Client({ connectionString: urlOf(database) });
      await client.connect();
      try {
        return (await client.query<R>(statement, values)).rows;
      } finally {
        await client.end();
      }
    },
  };
}

/** initdb, configure and start a primary on a free port; `settings` are postgresql.conf lines added after
 * the topology's own (a later line wins), e.g. `wal_level = logical` for a publisher. */
export async function startPrimary({ settings = [] }: { settings?: string[] } = {}): Promise<Primary> {
  requireProgram(join(POSTGRES_BIN, 'initdb'), 'postgresql');
  const folder = await ownedFolder('loadfeed-topology-pg-');
  const port = await freePort();
  const dataDir = join(folder, 'primary');
  await runUnprivileged(join(POSTGRES_BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  await appendFile(dataDir + '/postgresql.conf', [...SETTINGS, ...settings, `port = ${port}`, `unix_socket_directories = '${folder}'`, ''].join('\n'));
  const primary = clusterOf(folder, dataDir, port);
  await primary.start();
  const standbys: Standby[] = [];
  return {
    ...primary,
    async addStandby() {
      const standbyPort = await freePort();
      const standbyDir = join(folder, `standby-${standbys.length + 1}`);
      // -R writes standby.signal and primary_conninfo; -X stream copies the WAL written meanwhile.
      await runUnprivileged(join(POSTGRES_BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
      await appendFile(standbyDir + '/postgresql.conf', `port = ${standbyPort}\n`);
      const cluster = clusterOf(folder, standbyDir, standbyPort);
      await cluster.start();
      const standby: Standby = {
        ...cluster,
        pauseReplay: async () => {
          await cluster.sql('SELECT pg_wal_replay_pause()');
        },
        resumeReplay: async () => {
          await cluster.sql('SELECT pg_wal_replay_resume()');
        },
        caughtUp: async () => {
          const [{ lsn }] = (await primary.sql<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
          for (let attempt = 0; attempt < 600; attempt += 1) {
            const [row] = await cluster.sql<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
            if (row?.done) return;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          throw new Error(`standby on port ${standbyPort} did not replay up to ${lsn} within 30 s`);
        },
        promote: async () => {
          await runUnprivileged(join(POSTGRES_BIN, 'pg_ctl'), ['-D', standbyDir, '-w', '-t', '60', 'promote']);
        },
      };
      standbys.push(standby);
      return standby;
    },
    async destroy() {
      for (const cluster of [...standbys, primary]) await cluster.stop().catch(() => {});
      await rm(folder, { recursive: true, force: true });
    },
  };
}
