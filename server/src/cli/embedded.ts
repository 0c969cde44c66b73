// The embedded PostgreSQL that `start` uses without DATABASE_URL, run in a forked process of its own
// session (./embedded-postgres-host.ts) so that the order of shutdown stays `start`'s to decide.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { CliError } from './command.js';
import type { HostCommand, HostMessage } from './embedded-postgres-host.js';

export interface HostedPostgres {
  url: string;
  /** Stops PostgreSQL with a fast shutdown and waits for its process to end. */
  stop(): Promise<void>;
}

const HOST = new URL('./embedded-postgres-host.js', import.meta.url);

export async function startHostedPostgres(dataDir: string): Promise<HostedPostgres> {
  const host = fork(HOST, [dataDir], { detached: true, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // An IPC failure rejects `once`; it still means the host is gone.
  const exited = once(host, 'exit').catch(() => [host.exitCode]);
  const first = await Promise.race([
    once(host, 'message').then(([message]) => message as HostMessage),
    exited.then(([code]): HostMessage => ({ type: 'failed', message: `it exited with code ${String(code)}` })),
  ]);
  if (first.type !== 'ready') {
    throw new CliError(`the embedded PostgreSQL in ${dataDir} did not start: ${first.type === 'failed' ? first.message : 'no answer'}`);
  }
  let stopping: Promise<void> | undefined;
  return {
    url: first.url,
    stop: () =>
      (stopping ??= (async () => {
        if (host.exitCode === null && host.signalCode === null) {
          host.send({ type: 'stop' } satisfies HostCommand);
          await exited;
        }
      })()),
  };
}
