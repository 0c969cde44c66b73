// `loadfeed-server start`: the server, on DATABASE_URL or on an embedded PostgreSQL, with a graceful
// shutdown whose order is kept here: stop accepting, finish the requests in flight, close the pool,
// and only then stop the embedded PostgreSQL.
import { join } from 'node:path';
import type { Server } from '@hapi/hapi';
import type pg from 'pg';
import { CliError, writeLine } from '@loadfeed/spec/cli';
import { createServer } from '../app.js';
import { poolOptionsOf } from '../config/load.js';
import { settingsHelp } from '../config/docs.js';
import { EMBEDDED_POSTGRES_BINARIES, embeddedPostgresInstalled } from '../db/embedded-postgres-installed.js';
import { startHostedPostgres, type HostedPostgres } from '../db/hosted-postgres.js';
import { migrateSchema } from '../db/migrate.js';
import { MigrationLockWaitAborted } from '../db/migration-lock.js';
import { newerReleaseWarning } from './migrate.js';
import { createPool } from '../db/pool.js';
import { createLogger } from '../logging.js';
import { Metrics } from '../metrics.js';
import { listenForMetrics, type MetricsListener } from '../metrics-server.js';
import { COMMON_HELP, parseCommandLine, type Command } from './command.js';
import { configOf } from './database.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { readableLog } from './tty-log.js';
import { addDemoData, createDemoKey, DEMO_CUSTOMER, DEMO_LOADS, demoKeyLines, demoLoadsInWindow, isEmpty } from './demo.js';

/** How long requests in flight may take to finish once a shutdown begins. */
const DRAIN_TIMEOUT_MS = 10_000;
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export const startCommand: Command = {
  name: 'start',
  help: `Usage: loadfeed-server start [--new-demo-key] [options]

Runs the Customer Data API server. It migrates the database first (safe with several instances starting
at once), then listens on HOST:PORT.

With DATABASE_URL (or --database-url) it uses that PostgreSQL. Without one it runs an embedded PostgreSQL
whose data lives in LOADFEED_DATA_DIR (default .loadfeed). The first start on a fresh embedded database
adds a demo customer ("${DEMO_CUSTOMER.code}") with ${DEMO_LOADS} loads and prints a demo key and a curl command;
later starts reuse the data. It prints the DATABASE_URL that the other commands reach that database with
while it runs. One server at a time runs on a data folder: a second start names the one that holds it.

On SIGINT (Ctrl-C), SIGTERM or SIGHUP it stops accepting connections, lets requests in flight finish (up
to ${DRAIN_TIMEOUT_MS / 1000} s), closes its connections and stops the embedded PostgreSQL, then exits with 0.

Environment (read once at start; a value out of bounds stops it with a message naming the variable;
empty is unset):
${settingsHelp()}

Options:
  --new-demo-key         Issue and print another key for the demo customer
${COMMON_HELP}`,
  async run(args, { stdout, stderr, env }) {
    const { values } = parseCommandLine('start', args, { 'new-demo-key': { type: 'boolean' } }, { names: [], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const given = values['database-url'];
    const config = configOf(given === undefined ? env : { ...env, DATABASE_URL: given });
    if (!config.databaseUrl && !embeddedPostgresInstalled()) {
      throw new CliError(
        `no database given: set DATABASE_URL or pass --database-url postgres://… (this installation has no embedded PostgreSQL to start instead: ${EMBEDDED_POSTGRES_BINARIES} is not installed, as in the container image)`,
      );
    }
    // JSON lines for a log collector; readable lines on a terminal, where they follow the banner.
    const logger = createLogger(config.logLevel, 'isTTY' in stdout && stdout.isTTY === true ? readableLog(stdout) : stdout);
    const say = (lines: string[]): void => writeLine(stderr, lines.join('\n'));
    // Signals that arrive while starting wait for the start to finish, then stop it; except during a wait
    // for the migration lock, which has no bound: that ends at once.
    const stopRequested = signalled();
    const stopping = new AbortController();
    void stopRequested.then(() => stopping.abort());

    const embeddedDir = join(config.dataDir, 'embedded-postgres');
    // Taken before PostgreSQL starts, so that a second start on the same folder hears at once who holds it.
    const lock = config.databaseUrl ? undefined : await lockDataDir(config.dataDir);
    let postgres: HostedPostgres | undefined;
    let pool: pg.Pool | undefined;
    let directPool: pg.Pool | undefined;
    let server: Server | undefined;
    let metricsListener: MetricsListener | undefined;
    try {
      postgres = config.databaseUrl ? undefined : await startHostedPostgres(embeddedDir);
      const databaseUrl = config.databaseUrl ?? postgres!.url;
      // Migrations hold a session-level advisory lock: PostgreSQL itself, not a transaction-mode pooler.
      const directUrl = config.databaseDirectUrl ?? databaseUrl;
      const migrated = await migrateSchema(directUrl, { signal: stopping.signal, onWait: (message) => say([`loadfeed-server: ${message}`]) });
      // Types and indexes that differ are not said here: createServer's own check (definitions-check.ts)
      // logs them, once, as it does for a server embedded without this command.
      for (const warning of newerReleaseWarning(migrated)) say([`loadfeed-server: warning: ${warning}`]);
      const onIdleError = (error: Error) => logger.warn({ err: error }, 'an idle database connection failed; the pool replaces it');
      pool = createPool(databaseUrl, { ...poolOptionsOf(config), onIdleError });
      if (directUrl !== databaseUrl) directPool = createPool(directUrl, { ...poolOptionsOf(config), max: 2, onIdleError });
      const fresh = postgres !== undefined && (await isEmpty(pool));
      const now = new Date();
      if (fresh) await addDemoData(pool, now);
      const demoKey = fresh || values['new-demo-key'] ? await createDemoKey(pool) : undefined;
      const inWindow = fresh ? await demoLoadsInWindow(pool, now) : 0;

      const metrics = new Metrics();
      server = await createServer(config, { pool, directPool: directPool ?? pool, logger, metrics });
      await server.start();
      if (config.metricsPort !== undefined) metricsListener = await listenForMetrics(metrics, { host: config.metricsHost, port: config.metricsPort });
      const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
      const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${server.info.port}`;
      await lock?.update({ url: baseUrl, databaseUrl });
      say([
        `loadfeed-server: listening on ${baseUrl}`,
        ...(postgres
          ? [
              `  database: embedded PostgreSQL in ${embeddedDir}, on 127.0.0.1:${new URL(postgres.url).port}` +
                (fresh
                  ? ` (new: migrated, with demo customer "${DEMO_CUSTOMER.code}" and ${DEMO_LOADS} loads, ${inWindow} of them picking up inside the feed's 12-month window)`
                  : ' (reused)'),
              ...(postgres.movedFrom !== undefined
                ? [`  (its port of the last start, ${postgres.movedFrom}, is taken by another program now: a DATABASE_URL exported then no longer reaches it)`]
                : []),
              '  for the operator commands (npx loadfeed-server --help) in another terminal, while this runs (the next start keeps the port):',
              `    export DATABASE_URL='${databaseUrl}'`,
            ]
          : ['  database: DATABASE_URL']),
        ...(metricsListener ? [metricsLine(metricsListener)] : []),
        '',
        ...(demoKey ? demoKeyLines(demoKey, baseUrl) : postgres ? ['The demo key was shown at the first start; for another: npm start -- --new-demo-key', ''] : []),
        'Stop with Ctrl-C.',
      ]);
    } catch (error) {
      await metricsListener?.close();
      await stopAll(server, [pool, directPool], postgres, lock);
      if (error instanceof MigrationLockWaitAborted) {
        say([`loadfeed-server: ${await stopRequested} received while waiting for the migration lock; stopped`]);
        return;
      }
      throw error instanceof Error && /EADDRINUSE/.test(error.message) ? new CliError(`cannot listen on ${config.host}:${config.port}: the port is in use`) : error;
    }

    const signal = await stopRequested;
    say([`loadfeed-server: ${signal} received, stopping (requests in flight may finish)`]);
    await metricsListener?.close();
    await stopAll(server, [pool, directPool], postgres, lock);
    say(['loadfeed-server: stopped']);
  },
};

/** Stops what runs, in order; each step runs even if an earlier one failed. */
async function stopAll(server: Server | undefined, pools: (pg.Pool | undefined)[], postgres: HostedPostgres | undefined, lock: DataDirLock | undefined): Promise<void> {
  await server?.stop({ timeout: DRAIN_TIMEOUT_MS }).catch(() => {});
  for (const pool of pools) await pool?.end().catch(() => {});
  await postgres?.stop();
  await lock?.release().catch(() => {});
}

/**
 * Resolves with the first shutdown signal, which then no longer ends the process by default. A second
 * signal means "now": the process exits at once, and the embedded PostgreSQL's host, which notices,
 * stops it cleanly.
 */
function signalled(): Promise<string> {
  return new Promise((resolve) =>
    onSignals((signal) => {
      onSignals(() => process.exit(130));
      resolve(signal);
    }),
  );
}

/** `start` owns the process's signals: no other listener may end it before the shutdown order is kept. */
function onSignals(listener: (signal: string) => void): void {
  for (const name of SHUTDOWN_SIGNALS) {
    process.removeAllListeners(name);
    process.once(name, () => listener(name));
  }
}

/** The banner's metrics line: the address the listener has, and when that is every interface, says so. */
function metricsLine({ address, port }: MetricsListener): string {
  const everywhere = ['0.0.0.0', '::'].includes(address);
  const shown = everywhere ? '127.0.0.1' : address;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/metrics`;
  return `  metrics: ${url}${everywhere ? ` (listening on ${address}: every interface, without a key)` : ''}`;
}
