// What an operator of the customer's PostgreSQL meets: the typed table as documented, one sync per table at
// a time (an overlapping cron job stops with a line), a database that cannot be reached named without its
// password, and verify of a database that holds no copy.
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { LOAD_COLUMNS } from '../../src/destinations.js';
import { loadInputs } from '../helpers.js';
import { useTestServer } from '../integration/fixture.js';
import { withoutPassword } from './copies.js';
import { runCli } from './run-cli.js';

const kit = useTestServer();
const customerDatabase = useTestDatabase();

async function withClient<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withoutPassword(customerDatabase.url) });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

describe('loadfeed sync --postgres', () => {
  it('creates the documented table on the first run: typed columns, load_number its primary key, in the schema --table names', async () => {
    const customer = await kit.customer();
    await kit.server.importLoads(customer.code, loadInputs(3));
    await withClient((client) => client.query('CREATE SCHEMA IF NOT EXISTS warehouse'));

    const result = await runCli(['sync', '--postgres', withoutPassword(customerDatabase.url), '--table', 'warehouse.freight'], {
      LOADFEED_BASE_URL: kit.server.baseUrl,
      LOADFEED_API_KEY: customer.key,
    });

    expect(result.code).toBe(0);
    const columns = await withClient(async (client) =>
      (
        await client.query<{ column_name: string; data_type: string; is_nullable: string }>(
          `SELECT column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_schema = 'warehouse' AND table_name = 'freight' ORDER BY ordinal_position`,
        )
      ).rows,
    );
    const typeName = { text: 'text', timestamptz: 'timestamp with time zone', numeric: 'numeric' } as const;
    expect(columns).toEqual([
      ...LOAD_COLUMNS.map((column) => ({ column_name: column.column, data_type: typeName[column.type], is_nullable: column.notNull ? 'NO' : 'YES' })),
      // When the sync found the load gone from the feed (README "Removals").
      { column_name: 'removed_at', data_type: 'timestamp with time zone', is_nullable: 'YES' },
      // When a sync first found it absent, for the next run to confirm.
      { column_name: 'suspected_at', data_type: 'timestamp with time zone', is_nullable: 'YES' },
    ]);
    const primaryKey = await withClient(async (client) =>
      (
        await client.query<{ attname: string }>(
          `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = 'warehouse.freight'::regclass AND i.indisprimary`,
        )
      ).rows.map((row) => row.attname),
    );
    expect(primaryKey).toEqual(['load_number']);
    const cursor = await withClient(async (client) => (await client.query(`SELECT feed FROM warehouse.loadfeed_cursor`)).rows);
    expect(cursor).toEqual([{ feed: 'warehouse.freight' }]);
  });

  it('a second sync of the same table while one runs stops at once with a line that says so', async () => {
    const customer = await kit.customer();
    await kit.server.importLoads(customer.code, loadInputs(2));
    const env = { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key };
    expect((await runCli(['sync', '--postgres', withoutPassword(customerDatabase.url), '--table', 'held'], env)).code).toBe(0);

    const result = await withClient(async (client) => {
      // What the running sync holds: its advisory lock on the table, keyed by its resolved name.
      await client.query(`SELECT pg_advisory_lock(hashtextextended('loadfeed sync ' || $1::text, 0))`, ['public.held']);
      return runCli(['sync', '--postgres', withoutPassword(customerDatabase.url), '--table', 'held'], env);
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('loadfeed: another loadfeed sync is writing held in this database now; try again when it ends\n');
  });

  it('a database it cannot reach is named in one line, without the password of the URL', async () => {
    const result = await runCli(['sync', '--postgres', 'postgres://sync:s3cret-pw@127.0.0.1:9/warehouse'], {
      LOADFEED_BASE_URL: kit.server.baseUrl,
      LOADFEED_API_KEY: 'lf_live_unused0000000000000000000000000000000',
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('loadfeed: note: a password in --postgres shows in the process list; PGPASSWORD or ~/.pgpass keeps it out\n');
    expect(result.stderr).toMatch(/^loadfeed: cannot reach the database: .*ECONNREFUSED/m);
    expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
  });
});

describe("loadfeed sync --postgres into the loadfeed server's own database", () => {
  it('stops with one line before anything is written there', async () => {
    const customer = await kit.customer();
    await kit.server.importLoads(customer.code, loadInputs(2));

    const result = await runCli(['sync', '--postgres', withoutPassword(kit.databaseUrl)], { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^loadfeed: this is a loadfeed server's own database \(type load_status in schema \w+\): sync into a database of your own\n$/);
    const server = new pg.Client({ connectionString: withoutPassword(kit.databaseUrl) });
    await server.connect();
    try {
      expect((await server.query(`SELECT to_regclass('loadfeed_cursor') AS cursor`)).rows).toEqual([{ cursor: null }]);
    } finally {
      await server.end();
    }
  });
});

describe('loadfeed verify --postgres', () => {
  it('of a database without a copy says to sync first, with exit code 1, and creates nothing', async () => {
    const customer = await kit.customer();

    const result = await runCli(['verify', '--postgres', withoutPassword(customerDatabase.url), '--table', 'never_synced'], {
      LOADFEED_BASE_URL: kit.server.baseUrl,
      LOADFEED_API_KEY: customer.key,
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^loadfeed: the database has no copy in never_synced \(and loadfeed_cursor\): run `loadfeed sync --postgres` first\n$/);
    expect(await withClient(async (client) => (await client.query(`SELECT to_regclass('never_synced') AS found`)).rows[0].found)).toBeNull();
  });
});
