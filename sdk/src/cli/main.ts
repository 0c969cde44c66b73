#!/usr/bin/env node
// The `loadfeed` executable. Ctrl-C (SIGINT) or a scheduler's SIGTERM aborts the running command, which
// stops cleanly and exits 128 + the signal's number; the same signal again ends the process at once.
import { constants } from 'node:os';
import { runCli } from './run.js';

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stop.abort(signal);
    process.once(signal, () => process.exit(128 + constants.signals[signal]));
  });
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: stop.signal,
});
