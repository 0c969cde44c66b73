// `loadfeed-server start`: the server, on DATABASE_URL or on an embedded PostgreSQL, with a graceful
// shutdown whose order is kept here: stop accepting, finish the requests in flight, close the pool,
// and only then stop the embedded PostgreSQL.
import { join } from 'node:path';
import type { Server } from '@hapi/hapi';
import type pg from 'pg';
import { createServer } from '../app.js';
import { startHostedPostgres, type HostedPostgres } from '../db/hosted-postgres.js';
import { migrate } from '../db/migrate.js';
import { createPool } from '../db/pool.js';
import { createLogger } from '../logging.js';
import { COMMON_HELP, CliError, parseCommandLine, writeLine, type Command } from './command.js';
import { configOf } from './database.js';
import { addDemoData, createDemoKey, DEMO_CUSTOMER, DEMO_LOADS, demoKeyLines, isEmpty } from './demo.js';

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
later starts reuse the data.

On SIGINT (Ctrl-C), SIGTERM or SIGHUP it stops accepting connections, lets requests in flight finish (up
to ${DRAIN_TIMEOUT_MS / 1000} s), closes its connections and stops the embedded PostgreSQL, then exits with 0.

Environment: PORT (3000), HOST (127.0.0.1), DATABASE_URL, RATE_LIMIT_PER_MINUTE (10),
MAX_PAGE_SIZE (100, up to 1000), LOG_LEVEL (info), LOADFEED_DATA_DIR (.loadfeed).

Options:
  --new-demo-key         Issue and print another key for the demo customer
${COMMON_HELP}`,
  async run(args, { stdout, stderr, env }) {
    const { values } = parseCommandLine('start', args, { 'new-demo-key': { type: 'boolean' } }, { names: [], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const given = values['database-url'];
    const config = configOf(given === undefined ? env : { ...env, DATABASE_URL: given });
    const logger = createLogger(config.logLevel, stdout);
    const say = (lines: string[]): void => writeLine(stderr, lines.join('\n'));
    // Signals that arrive while starting wait for the start to finish, then stop it.
    const stopRequested = signalled();

    const embeddedDir = join(config.dataDir, 'embedded-postgres');
    const postgres: HostedPostgres | undefined = config.databaseUrl ? undefined : await startHostedPostgres(embeddedDir);
    let pool: pg.Pool | undefined;
    let server: Server | undefined;
    try {
      const databaseUrl = config.databaseUrl ?? postgres!.url;
      await migrate(databaseUrl);
      pool = createPool(databaseUrl, { onIdleError: (error) => logger.warn({ err: error }, 'an idle database connection failed; the pool replaces it') });
      const fresh = postgres !== undefined && (await isEmpty(pool));
      if (fresh) await addDemoData(pool, new Date());
      const demoKey = fresh || values['new-demo-key'] ? await createDemoKey(pool) : undefined;

      server = await createServer(config, { pool, logger });
      await server.start();
      const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
      const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${server.info.port}`;
      say([
        `loadfeed-server: listening on ${baseUrl}`,
        postgres
          ? `  database: embedded PostgreSQL in ${embeddedDir}, on 127.0.0.1:${new URL(postgres.url).port}${fresh ? ` (new: migrated, with demo customer "${DEMO_CUSTOMER.code}" and ${DEMO_LOADS} loads)` : ' (reused)'}`
          : '  database: DATABASE_URL',
        '',
        ...(demoKey ? demoKeyLines(demoKey, baseUrl) : postgres ? ['The demo key was shown at the first start; for another: npm start -- --new-demo-key', ''] : []),
        'Stop with Ctrl-C.',
      ]);
    } catch (error) {
      await stopAll(server, pool, postgres);
      throw error instanceof Error && /EADDRINUSE/.test(error.message) ? new CliError(`cannot listen on ${config.host}:${config.port}: the port is in use`) : error;
    }

    const signal = await stopRequested;
    say([`loadfeed-server: ${signal} received, stopping (requests in flight may finish)`]);
    await stopAll(server, pool, postgres);
    say(['loadfeed-server: stopped']);
  },
};

/** Stops what runs, in order; each step runs even if an earlier one failed. */
async function stopAll(server: Server | undefined, pool: pg.Pool | undefined, postgres: HostedPostgres | undefined): Promise<void> {
  await server?.stop({ timeout: DRAIN_TIMEOUT_MS }).catch(() => {});
  await pool?.end().catch(() => {});
  await postgres?.stop();
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
