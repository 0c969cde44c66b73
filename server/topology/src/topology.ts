// The whole topology on this machine, as an operator past one database runs it:
//
//   clients ──▶ HAProxy ──▶ loadfeed-server × 2 ──▶ PgBouncer (transaction mode) ──▶ primary
//                                                                                └──▶ streaming standby
//
// A primary made by initdb and a standby by pg_basebackup (Debian's PostgreSQL 15), PgBouncer with one
// entry for each, two instances reading pages on the standby (DATABASE_REPLICA_URLS) and doing session
// work on the primary directly (DATABASE_DIRECT_URL), HAProxy in front. A customer with seeded loads and
// a key are made, so that the printed URL can be tried at once. `stop()` stops it all, last started
// first, and removes every folder.
import pg from 'pg';
import { addCustomer } from '../../dist/customers.js';
import { migrate } from '../../dist/db/migrate.js';
import { createKey } from '../../dist/admission/keys.js';
import { seedCustomerLoads } from '../../dist/seed/seed.js';
import { startHaProxy, type HaProxy } from './haproxy.js';
import { startInstance, type Instance } from './instance.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';
import { startPrimary, type Primary, type Standby } from './postgres.js';
import { requireTopologyPrograms } from './processes.js';

export const DATABASE = 'loadfeed';
const STANDBY_ENTRY = 'loadfeed_standby';

export interface TopologyOptions {
  instances?: number;
  /** Loads seeded for the demo customer before its key is made. */
  loads?: number;
  /** The demo key's rate limit; default: the server's (10 a minute). */
  rateLimit?: number;
  /** Extra environment of every instance. */
  env?: Record<string, string>;
  /** Told what is starting, for a command's progress lines. */
  progress?: (step: string) => void;
}

export interface Topology {
  /** HAProxy's URL: the API as clients reach it. */
  url: string;
  customer: string;
  key: string;
  primary: Primary;
  standby: Standby;
  bouncer: PgBouncer;
  instances: Instance[];
  haproxy: HaProxy;
  /** A connection string for the feed's database on the primary itself. */
  primaryUrl: string;
  stop(): Promise<void>;
}

export async function startTopology({ instances: count = 2, loads = 300, rateLimit, env = {}, progress = () => {} }: TopologyOptions = {}): Promise<Topology> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const each of stops.reverse()) await each().catch(() => {});
    stops.length = 0;
  };
  requireTopologyPrograms();
  try {
    progress('primary (initdb)');
    const primary = await startPrimary();
    stops.push(() => primary.destroy());
    await primary.sql(`CREATE DATABASE ${DATABASE}`);
    const primaryUrl = primary.urlOf(DATABASE);
    await migrate(primaryUrl);

    progress('demo customer, loads and key');
    const pool = new pg.Pool({ connectionString: primaryUrl, max: 2 });
    let key: string;
    try {
      await addCustomer(pool, 'demo', 'Demo Freight');
      if (loads > 0) await seedCustomerLoads(pool, 'demo', { seed: 'topology', count: loads, asOf: new Date() });
      key = (await createKey(pool, 'demo', rateLimit === undefined ? {} : { rateLimit })).key;
    } finally {
      await pool.end();
    }

    progress('standby (pg_basebackup)');
    const standby = await primary.addStandby();

    progress('PgBouncer (transaction mode)');
    const bouncer = await startPgBouncer({
      databases: [
        { name: DATABASE, port: primary.port },
        { name: STANDBY_ENTRY, port: standby.port, dbname: DATABASE },
      ],
      poolMode: 'transaction',
      poolSize: 10 * count,
    });
    stops.push(() => bouncer.stop());

    progress(`${count} server instances`);
    const instances = await Promise.all(
      Array.from({ length: count }, () =>
        startInstance({
          DATABASE_URL: bouncer.urlOf(DATABASE),
          DATABASE_DIRECT_URL: primaryUrl,
          DATABASE_REPLICA_URLS: bouncer.urlOf(STANDBY_ENTRY),
          ...env,
        }),
      ),
    );
    for (const instance of instances) stops.push(() => instance.stop());

    progress('HAProxy');
    const haproxy = await startHaProxy(instances);
    stops.push(() => haproxy.stop());
    await untilServing(`${haproxy.url}/readyz`);

    return { url: haproxy.url, customer: 'demo', key, primary, standby, bouncer, instances, haproxy, primaryUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Resolves once `url` answers 200 a few times in a row (HAProxy has its instances in rotation). */
async function untilServing(url: string): Promise<void> {
  let inARow = 0;
  for (let attempt = 0; attempt < 300 && inARow < 4; attempt += 1) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    inARow = ok ? inARow + 1 : 0;
    if (inARow < 4) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (inARow < 4) throw new Error(`${url} did not answer 200 within 30 s`);
}
