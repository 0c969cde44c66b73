// The server behind a real PgBouncer in transaction pooling mode, the mode operators run: nothing it
// does on a pooled connection may need the session, and what does (migrations, the feed index's
// renewal) takes DATABASE_DIRECT_URL. The pool is kept smaller than the clients, so that connections
// are shared between them and any session state would leak or be lost.
import type { Server } from '@hapi/hapi';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgBouncer, type PgBouncer } from '../../topology/src/pgbouncer.js';
import { createServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { addCustomer } from '../../src/customers.js';
import { feedIndexCutoff, keepFeedIndexCurrent } from '../../src/db/feed-index.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { importLoads } from '../../src/loads/import.js';
import { createLogger } from '../../src/logging.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

const INSTANCES = 4;

interface Instance {
  pool: pg.Pool;
  directPool: pg.Pool;
  server: Server;
}

describe('behind PgBouncer in transaction mode', () => {
  const database = useTestDatabase();
  let bouncer: PgBouncer;
  const instances: Instance[] = [];

  beforeAll(async () => {
    // An embedded PostgreSQL (no TEST_DATABASE_URL) asks for the password in its URL; PgBouncer logs in with it.
    const upstream = new URL(database.url);
    bouncer = await startPgBouncer({
      databases: [{ name: '*', port: Number(upstream.port || 5432), ...(upstream.password ? { user: decodeURIComponent(upstream.username), password: decodeURIComponent(upstream.password) } : {}) }],
      poolMode: 'transaction',
      poolSize: 3,
    });
  });
  afterAll(async () => {
    for (const { server, pool, directPool } of instances) {
      await server.stop();
      await pool.end();
      await directPool.end();
    }
    await bouncer?.stop();
  });

  const advisoryLocksHeld = async (pool: pg.Pool): Promise<number> =>
    Number(
      (
        await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      ).rows[0]!.n,
    );

  it('several instances starting at once migrate and renew the feed index through the direct URL, and leave no lock behind', async () => {
    const pooledUrl = bouncer.urlOf(new URL(database.url).pathname.slice(1));
    const config = loadConfig({ DATABASE_URL: pooledUrl, DATABASE_DIRECT_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '3' });
    // Two months on, the feed index is due for renewal: every instance races for it at once.
    const later = new Date(Date.now() + 62 * 24 * 60 * 60 * 1000);
    const started = await Promise.all(
      Array.from({ length: INSTANCES }, async () => {
        await migrate(config.databaseDirectUrl!);
        const pool = createPool(config.databaseUrl!, { max: 3 });
        const directPool = createPool(config.databaseDirectUrl!, { max: 2 });
        const server = await createServer(config, { pool, directPool, logger: createLogger('silent') });
        instances.push({ pool, directPool, server });
        return keepFeedIndexCurrent(directPool, later);
      }),
    );
    expect(started.filter((upkeep) => upkeep.rebuilt).length).toBeLessThanOrEqual(1);
    const cutoff = feedIndexCutoff(later).toISOString().slice(0, 10).replaceAll('-', '_');
    const { pool } = instances[0]!;
    const indexes = await pool.query<{ relname: string }>(`SELECT relname FROM pg_class WHERE relname LIKE 'loads_feed_since_%' ORDER BY relname`);
    expect(indexes.rows.map((row) => row.relname)).toEqual([`loads_feed_since_${cutoff}`]);
    expect(await advisoryLocksHeld(instances[0]!.directPool)).toBe(0);
  });

  it('serves pages, keeps the limit and imports through pooled connections; parallel query is off on every pooled session', async () => {
    const [{ pool, server }] = instances as [Instance];
    const settings = await Promise.all(Array.from({ length: 6 }, () => pool.query<{ max_parallel_workers_per_gather: string }>('SHOW max_parallel_workers_per_gather')));
    expect(settings.map((result) => result.rows[0]!.max_parallel_workers_per_gather)).toEqual(Array(6).fill('0'));

    await addCustomer(pool, 'acme');
    const summary = await importLoads(pool, 'acme', [{ line: 1, value: { loadNumber: 'L1', status: 'Available', scheduledPickupDate: new Date().toISOString() } }]);
    expect(summary).toMatchObject({ inserted: 1 });
    const { key } = await createKey(pool, 'acme');
    const statuses: number[] = [];
    // The requests go to all instances at once, so that they share the pooler's few connections.
    const responses = await Promise.all(
      instances.map(({ server: each }) => each.inject({ method: 'GET', url: '/api/v1/loads', headers: { authorization: `Bearer ${key}` } })),
    );
    for (const response of responses) statuses.push(response.statusCode);
    expect(statuses.sort()).toEqual([200, 200, 200, 429]);
    const page = responses.find((response) => response.statusCode === 200)!;
    expect((JSON.parse(page.payload) as { data: { loadNumber: string }[] }).data.map((load) => load.loadNumber)).toEqual(['L1']);
    expect((await server.inject('/readyz')).statusCode).toBe(200);
    expect(await advisoryLocksHeld(instances[0]!.directPool)).toBe(0);
  });
});
