// Runs the embedded PostgreSQL in a process of its own session, forked by startHostedPostgres (see
// ./hosted-postgres.ts). A Ctrl-C in a terminal signals the whole foreground process group; out of that
// group, PostgreSQL keeps serving the requests its caller is still finishing, and stops only when the
// caller says so.
import { startEmbeddedPostgres } from './embedded-postgres.js';

export type HostMessage = { type: 'ready'; url: string; movedFrom?: number } | { type: 'failed'; message: string };
export type HostCommand = { type: 'stop' };

const dataDir = process.argv[2];
const send = (message: HostMessage): void => {
  process.send?.(message);
};

if (!dataDir || !process.send) {
  process.stderr.write('embedded-postgres-host: run by startHostedPostgres (hosted-postgres.ts) only\n');
  process.exit(2);
}

// PostgreSQL's own last words, for when it does not start: the reason is in its log, not in the error.
let lastLogLine = '';
const onLog = (message: string): void => {
  const line = message.trim().split('\n').at(-1);
  // Without its "2026-11-22 04:44:14.967 UTC [31076] " prefix.
  if (line) lastLogLine = line.replace(/^\d{4}-\d{2}-\d{2} [\d:.]+ \S+ \[\d+\] /, '');
};

try {
  const postgres = await startEmbeddedPostgres({ dataDir, onLog });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= postgres.stop());
  process.on('message', (command: HostCommand) => {
    if (command.type !== 'stop') return;
    void stop().then(() => process.disconnect());
  });
  // The caller died without asking (killed, crashed): stop PostgreSQL cleanly rather than orphan it.
  process.on('disconnect', () => void stop());
  send({ type: 'ready', url: postgres.url, ...(postgres.movedFrom !== undefined ? { movedFrom: postgres.movedFrom } : {}) });
} catch (error) {
  const message = error instanceof Error && error.message ? error.message : lastLogLine || 'no reason given';
  send({ type: 'failed', message });
  process.disconnect();
}
