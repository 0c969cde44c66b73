// `npm run bench:writes -w @loadfeed/server`: what a write of loads costs, in one run, alternating rounds.
// The same bulk INSERT ... SELECT and UPDATE of 100,000 loads into `loads` and into a bare copy of it
// (same columns, indexes and constraints but the foreign key to customers, which `LIKE` does not copy; no
// triggers, no stored JSON), into a second bare copy that keeps that foreign key (its check is a trigger
// of PostgreSQL's own, ~6 µs a row), and `loadfeed-server import` of the same 100,000 loads (into an
// empty `loads`, as the bare INSERT starts from, and beside another customer's 100,000); each on two
// databases: the release before (migrated to 0014: the stored page JSON of 0010) and this one (every
// migration: page JSON made per page, 0015). Not part of `npm test`.
//
// Environment: BENCH_DATABASE_URL, else TEST_DATABASE_URL/DATABASE_URL's server (two scratch databases
// are made there and dropped after), BENCH_WRITE_ROWS (100000), BENCH_ROUNDS (3).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPool } from '../../dist/db/pool.js';
import { addCustomer } from '../../dist/customers.js';
import { row, targetLines } from './report.js';
import { dropScratchDatabases, scratchDatabase } from './scratch-database.js';

const ROWS = Number(process.env.BENCH_WRITE_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/** The columns a writer sets, in the table's order. */
const COLUMNS = `customer_id, load_number, po_number, billing_ref_number, origin_city, origin_state, origin_zip, origin_warehouse,
  destination_city, destination_state, destination_zip, destination_warehouse, status, scheduled_pickup_date, scheduled_pickup_time,
  scheduled_delivery_date, scheduled_delivery_time, tendered_date, actual_pickup_date, actual_delivery_date, requested_delivery_date,
  miles, total_cost`;

/** 100,000 loads of one customer, values as varied as real ones (cities, dates, decimals), made once per database. */
const SOURCE_SQL = `
CREATE TABLE write_bench_source AS
SELECT $1::bigint AS customer_id, 'WB-' || n AS load_number, 'PO-' || (n * 7919 % 1000003) AS po_number,
       CASE WHEN n % 3 = 0 THEN NULL ELSE 'BR-' || n END AS billing_ref_number,
       (ARRAY['Reno', 'Dallas', 'Fresno', 'Tulsa', 'Akron', 'Boise'])[1 + n % 6] AS origin_city,
       (ARRAY['NV', 'TX', 'CA', 'OK', 'OH', 'ID'])[1 + n % 6] AS origin_state, lpad((n * 37 % 99999)::text, 5, '0') AS origin_zip,
       CASE WHEN n % 4 = 0 THEN 'Warehouse ' || (n % 40) END AS origin_warehouse,
       (ARRAY['Omaha', 'Austin', 'Denver', 'Mobile', 'Salem'])[1 + n % 5] AS destination_city,
       (ARRAY['NE', 'TX', 'CO', 'AL', 'OR'])[1 + n % 5] AS destination_state, lpad((n * 53 % 99999)::text, 5, '0') AS destination_zip,
       CASE WHEN n % 5 = 0 THEN 'Dock ' || (n % 25) END AS destination_warehouse,
       (enum_range(NULL::load_status))[1 + n % 13] AS status,
       now() - (n % 300) * interval '1 day' + (n % 1440) * interval '1 minute' AS scheduled_pickup_date, '08:30' AS scheduled_pickup_time,
       now() - (n % 300) * interval '1 day' + interval '2 days' AS scheduled_delivery_date, '14:00' AS scheduled_delivery_time,
       now() - (n % 300) * interval '1 day' - interval '3 days' AS tendered_date,
       CASE WHEN n % 2 = 0 THEN now() - (n % 300) * interval '1 day' + interval '37 minutes' END AS actual_pickup_date,
       CASE WHEN n % 2 = 0 THEN now() - (n % 300) * interval '1 day' + interval '2 days 3 hours' END AS actual_delivery_date,
       now() - (n % 300) * interval '1 day' + interval '2 days' AS requested_delivery_date,
       round((100 + n % 2500)::numeric + (n % 10) / 10.0, 1) AS miles, round((250 + n % 9000)::numeric * 1.37, 2) AS total_cost
  FROM generate_series(1, $2::integer) AS n`;

/** The same rows as the API's Load objects, one per line: what `loadfeed-server import` reads. */
const NDJSON_SQL = `
SELECT json_build_object(
  'loadNumber', load_number, 'poNumber', po_number, 'billingRefNumber', billing_ref_number,
  'originCity', origin_city, 'originState', origin_state, 'originZip', origin_zip, 'originWarehouse', origin_warehouse,
  'destinationCity', destination_city, 'destinationState', destination_state, 'destinationZip', destination_zip,
  'destinationWarehouse', destination_warehouse, 'status', status,
  'scheduledPickupDate', to_char(scheduled_pickup_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'scheduledPickupTime', scheduled_pickup_time,
  'scheduledDeliveryDate', to_char(scheduled_delivery_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'scheduledDeliveryTime', scheduled_delivery_time,
  'tenderedDate', to_char(tendered_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'actualPickupDate', to_char(actual_pickup_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'actualDeliveryDate', to_char(actual_delivery_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'requestedDeliveryDate', to_char(requested_delivery_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'miles', miles::text, 'totalCost', total_cost::text)::text AS line
  FROM write_bench_source ORDER BY load_number`;

interface Side {
  name: string;
  url: string;
  pool: pg.Pool;
  customerId: string;
}

interface Timings {
  insertMs: number[];
  updateMs: number[];
  bareInsertMs: number[];
  bareUpdateMs: number[];
  bareFkInsertMs: number[];
  bareFkUpdateMs: number[];
  importMs: number[];
  importBesideMs: number[];
  bytes: number;
  bareBytes: number;
}

async function prepareSide(serverUrl: string, name: string, lastMigration: string): Promise<Side> {
  const url = new URL(await scratchDatabase(serverUrl, name, lastMigration));
  const pool = createPool(url.toString(), { max: 1 });
  await addCustomer(pool, 'writes');
  const customerId = (await pool.query<{ id: string }>("SELECT id::text AS id FROM customers WHERE code = 'writes'")).rows[0]!.id;
  await pool.query(SOURCE_SQL, [customerId, ROWS]);
  // The bare table: the same columns, defaults, constraints and indexes; no trigger, no stored JSON.
  await pool.query('CREATE TABLE loads_bare (LIKE loads INCLUDING ALL)');
  await pool.query('ALTER TABLE loads_bare DROP COLUMN IF EXISTS api_json');
  // The same with the foreign key to customers that every write of loads checks, trigger or not.
  await pool.query('CREATE TABLE loads_bare_fk (LIKE loads_bare INCLUDING ALL)');
  await pool.query('ALTER TABLE loads_bare_fk ADD FOREIGN KEY (customer_id) REFERENCES customers (id)');
  return { name, url: url.toString(), pool, customerId };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function writeNdjson(pool: pg.Pool, path: string): Promise<void> {
  const { rows } = await pool.query<{ line: string }>(NDJSON_SQL);
  const file = createWriteStream(path);
  for (const { line } of rows) file.write(`${line}\n`);
  file.end();
  await once(file, 'finish');
}

async function importFile(url: string, customerCode: string, path: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'import', customerCode, path], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`import exited with ${code}: ${stderr}`);
  return performance.now() - started;
}

/** One round on one side: each statement on the bare table and on loads, from empty tables. */
async function round(side: Side, timings: Timings, folder: string, roundIndex: number): Promise<void> {
  const { pool } = side;
  await pool.query('TRUNCATE loads, loads_bare, loads_bare_fk');
  const insert = (table: string) => `INSERT INTO ${table} (${COLUMNS}) SELECT ${COLUMNS} FROM write_bench_source`;
  const update = (table: string) => `UPDATE ${table} SET origin_city = origin_city || ' N', total_cost = total_cost + 1`;
  // The order alternates between rounds, so that neither table always goes first.
  const order = roundIndex % 2 === 0 ? ['loads_bare', 'loads_bare_fk', 'loads'] : ['loads', 'loads_bare_fk', 'loads_bare'];
  const insertTimes = { loads: timings.insertMs, loads_bare: timings.bareInsertMs, loads_bare_fk: timings.bareFkInsertMs } as Record<string, number[]>;
  const updateTimes = { loads: timings.updateMs, loads_bare: timings.bareUpdateMs, loads_bare_fk: timings.bareFkUpdateMs } as Record<string, number[]>;
  for (const table of order) {
    insertTimes[table]!.push(await timed(() => pool.query(insert(table))));
  }
  const { rows } = await pool.query<{ loads: string; bare: string }>("SELECT pg_total_relation_size('loads')::text AS loads, pg_total_relation_size('loads_bare')::text AS bare");
  timings.bytes = Number(rows[0]!.loads);
  timings.bareBytes = Number(rows[0]!.bare);
  for (const table of order) {
    updateTimes[table]!.push(await timed(() => pool.query(update(table))));
  }
  // The importer into a customer of its own each round: first beside the round's 100,000 loads of another
  // customer (its indexes' pages to find among the bare tables' in shared_buffers), then into the empty
  // table the bare INSERT starts from, the comparison the target makes.
  for (const [times, empty] of [[timings.importBesideMs, false], [timings.importMs, true]] as const) {
    if (empty) await pool.query('TRUNCATE loads');
    const code = `import${roundIndex}${empty ? '' : '-beside'}`;
    await addCustomer(pool, code);
    times.push(await importFile(side.url, code, join(folder, 'loads.ndjson')));
  }
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const perSecond = (ms: number): number => ROWS / (ms / 1000);

const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!serverUrl) throw new Error('bench:writes needs BENCH_DATABASE_URL, TEST_DATABASE_URL or DATABASE_URL (a PostgreSQL server to make two scratch databases on)');
const folder = await mkdtemp(join(tmpdir(), 'loadfeed-writes-'));
const loadAverage = loadavg()[0]!;
const sides = [await prepareSide(serverUrl, 'loadfeed_writes_before', '0014'), await prepareSide(serverUrl, 'loadfeed_writes_after', '9999')];
try {
  await writeNdjson(sides[1]!.pool, join(folder, 'loads.ndjson'));
  const timings = new Map<string, Timings>(sides.map((side) => [side.name, { insertMs: [], updateMs: [], bareInsertMs: [], bareUpdateMs: [], bareFkInsertMs: [], bareFkUpdateMs: [], importMs: [], importBesideMs: [], bytes: 0, bareBytes: 0 }]));
  for (let index = 0; index < ROUNDS; index += 1) {
    for (const side of index % 2 === 0 ? sides : [...sides].reverse()) await round(side, timings.get(side.name)!, folder, index);
  }

  log('loadfeed write-path benchmark');
  log(`  machine: ${cpus().length} CPU cores shared with other work (1-minute load average ${loadAverage.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at the end)`);
  log(`  ${ROWS} loads of one customer; median of ${ROUNDS} rounds alternating between the databases and, within each, between the tables`);
  log(`  before: migrated to 0014 (page JSON stored with each load, 0010); after: this release (every migration, then server/sql/'s definitions: page JSON made per page)`);
  log();
  const widths = [60, 12, 12, 10];
  log(row(['rows/s (table MB)', 'bare table', 'loads', 'ratio'], widths));
  const targets = [];
  for (const side of sides) {
    const t = timings.get(side.name)!;
    const bareInsert = perSecond(median(t.bareInsertMs));
    log(row([`${side.name}: INSERT ... SELECT`, bareInsert, perSecond(median(t.insertMs)), perSecond(median(t.insertMs)) / bareInsert], widths));
    log(row([`${side.name}: UPDATE`, perSecond(median(t.bareUpdateMs)), perSecond(median(t.updateMs)), perSecond(median(t.updateMs)) / perSecond(median(t.bareUpdateMs))], widths));
    log(row([`${side.name}: loadfeed-server import`, bareInsert, perSecond(median(t.importMs)), perSecond(median(t.importMs)) / bareInsert], widths));
    log(row([`${side.name}: import beside another customer's loads`, bareInsert, perSecond(median(t.importBesideMs)), perSecond(median(t.importBesideMs)) / bareInsert], widths));
    const bareFkInsert = perSecond(median(t.bareFkInsertMs));
    log(row([`${side.name}: INSERT, bare with the customers FK`, bareFkInsert, perSecond(median(t.insertMs)), perSecond(median(t.insertMs)) / bareFkInsert], widths));
    log(row([`${side.name}: UPDATE, bare with the customers FK`, perSecond(median(t.bareFkUpdateMs)), perSecond(median(t.updateMs)), perSecond(median(t.updateMs)) / perSecond(median(t.bareFkUpdateMs))], widths));
    log(row([`${side.name}: import, bare INSERT with the FK`, bareFkInsert, perSecond(median(t.importMs)), perSecond(median(t.importMs)) / bareFkInsert], widths));
    log(row([`${side.name}: table size, MB`, t.bareBytes / 1e6, t.bytes / 1e6, t.bytes / t.bareBytes], widths));
    if (side === sides[1]) {
      targets.push(
        { name: 'bulk INSERT, loads / bare table', value: perSecond(median(t.insertMs)) / bareInsert, unit: 'x' as const, bound: 0.5, comparison: '>=' as const },
        { name: 'bulk UPDATE, loads / bare table', value: perSecond(median(t.updateMs)) / perSecond(median(t.bareUpdateMs)), unit: 'x' as const, bound: 0.5, comparison: '>=' as const },
        { name: 'import / bare INSERT', value: perSecond(median(t.importMs)) / bareInsert, unit: 'x' as const, bound: 0.4, comparison: '>=' as const },
        { name: 'table size, loads / bare table', value: t.bytes / t.bareBytes, unit: 'x' as const, bound: 1.5, comparison: '<=' as const },
      );
    }
  }
  log();
  log('Targets (after):');
  for (const line of targetLines(targets)) log(line);
} finally {
  await Promise.all(sides.map((side) => side.pool.end()));
  await dropScratchDatabases(serverUrl, sides.map((side) => side.name));
  await rm(folder, { recursive: true, force: true });
}
