#!/usr/bin/env node
// The `loadfeed` executable. The first Ctrl-C aborts the running command, which stops cleanly and
// exits 130; a second one ends the process at once.
import { EXIT_CODES } from './command.js';
import { runCli } from './run.js';

const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(EXIT_CODES.interrupted));
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: interrupt.signal,
});
