// What `--postgres` does with the tables it finds in a customer's database: a column that would change a
// value or is missing is refused on open, before anything is written, with the column and the fix named;
// a constraint that only refuses values the API sends is loosened; a copy made by an earlier release keeps
// its cursor; `loads` and `public.loads` are one copy; a table that keeps nothing and a loadfeed server's
// own database are refused; after the first run a role with SELECT, INSERT and UPDATE suffices.
import { randomBytes } from 'node:crypto';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { LOAD_COLUMNS, openPostgresDestination } from '../../src/destinations.js';
import { withoutPassword } from '../cli/copies.js';
import { useTestServer } from '../integration/fixture.js';
import { row } from './rows.js';

const kit = useTestServer();
const customerDatabase = useTestDatabase();
const url = () => withoutPassword(customerDatabase.url);

async function sql<Row = Record<string, unknown>>(text: string, values: unknown[] = [], connectionString = url()): Promise<Row[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** A schema of its own for each test, with today's layout of the copy in it when asked. */
async function schema(): Promise<string> {
  const name = `s_${randomBytes(4).toString('hex')}`;
  await sql(`CREATE SCHEMA ${name}`);
  return name;
}

/** The tables as the first run creates them (and as the release before these checks did). */
const LAYOUT = (schema: string, overrides: Record<string, string> = {}) => `
CREATE TABLE ${schema}.loads (
  ${LOAD_COLUMNS.map((column) => `${column.column} ${overrides[column.column] ?? `${column.type}${column.notNull ? ' NOT NULL' : ''}`}`).join(',\n  ')},
  PRIMARY KEY (load_number)
);
CREATE TABLE ${schema}.loadfeed_cursor (feed text PRIMARY KEY, cursor ${overrides.cursor ?? 'timestamptz'} NOT NULL)`;

const T1 = '2026-11-22T01:00:00.123Z';
const T2 = '2026-11-22T02:00:00.000Z';

describe('--postgres on tables that exist', () => {
  it('refuses a cursor column of timestamp without time zone in a database on Asia/Tokyo, naming the column and the fix, and writes nothing', async () => {
    const name = await schema();
    await sql(LAYOUT(name, { cursor: 'timestamp' }));
    await sql(`ALTER DATABASE "${customerDatabase.name}" SET TimeZone = 'Asia/Tokyo'`);
    try {
      await expect(openPostgresDestination({ connectionString: url(), table: `${name}.loads` })).rejects.toThrow(
        `the table ${name}.loads cannot hold the copy: column "${name}".loadfeed_cursor.cursor is timestamp without time zone, not timestamptz; fix: ALTER TABLE "${name}".loadfeed_cursor ALTER COLUMN cursor TYPE timestamptz USING cursor AT TIME ZONE 'Asia/Tokyo'`,
      );
    } finally {
      await sql(`ALTER DATABASE "${customerDatabase.name}" RESET TimeZone`);
    }
    expect(await sql(`SELECT * FROM ${name}.loadfeed_cursor`)).toEqual([]);
  });

  it.each([
    ['miles', 'integer'],
    ['total_cost', 'numeric(10,0)'],
    ['total_cost', 'double precision'],
    ['updated_at', 'timestamp without time zone'],
    ['tendered_date', 'timestamp(0) with time zone'],
  ])('refuses %s as %s, which would change values, before writing', async (column, type) => {
    const name = await schema();
    await sql(LAYOUT(name, { [column]: type }));

    const opened = openPostgresDestination({ connectionString: url(), table: `${name}.loads` });

    await expect(opened).rejects.toThrow(new RegExp(`^the table ${name}\\.loads cannot hold the copy: column ${column} is ${type.replace(/[()]/g, '\\$&')}, .*; fix: ALTER TABLE "${name}"\\."loads" ALTER COLUMN ${column} TYPE`));
    expect(await sql(`SELECT * FROM ${name}.loads`)).toEqual([]);
  });

  it('refuses such a column when verify opens the copy for reading too, and changes nothing', async () => {
    const name = await schema();
    await sql(LAYOUT(name, { miles: 'integer', po_number: 'varchar(4)' }));

    await expect(openPostgresDestination({ connectionString: url(), table: `${name}.loads`, write: false })).rejects.toThrow(/column miles is integer, /);
    expect(await sql(`SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'po_number'`, [name])).toEqual([{ data_type: 'character varying' }]);
  });

  it('refuses a missing column with the statement that adds it', async () => {
    const name = await schema();
    await sql(LAYOUT(name));
    await sql(`ALTER TABLE ${name}.loads DROP COLUMN origin_zip`);

    await expect(openPostgresDestination({ connectionString: url(), table: `${name}.loads` })).rejects.toThrow(
      `column origin_zip is missing; fix: ALTER TABLE "${name}"."loads" ADD COLUMN origin_zip text, then delete its cursor`,
    );
  });

  it('loosens a varchar(n) to text and a NOT NULL the API may break, and then writes', async () => {
    const name = await schema();
    await sql(LAYOUT(name, { po_number: 'varchar(4) NOT NULL', origin_city: 'text NOT NULL' }));

    const destination = await openPostgresDestination({ connectionString: url(), table: `${name}.loads` });
    await destination.write([row(1, T1, { poNumber: 'PO-longer-than-four', originCity: null })], T1);
    await destination.close();

    const columns = await sql<{ column_name: string; data_type: string; is_nullable: string }>(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND column_name IN ('po_number', 'origin_city') ORDER BY column_name`,
      [name],
    );
    expect(columns).toEqual([
      { column_name: 'origin_city', data_type: 'text', is_nullable: 'YES' },
      { column_name: 'po_number', data_type: 'text', is_nullable: 'YES' },
    ]);
  });

  it("keeps working on a copy made by the release before: its cursor, keyed by --table as given, is read and then moves under schema.table", async () => {
    const name = await schema();
    await sql(LAYOUT(name));
    await sql(`INSERT INTO ${name}.loadfeed_cursor VALUES ('${name}.loads', $1)`, [T1]);

    const destination = await openPostgresDestination({ connectionString: url(), table: `${name}.loads` });
    expect(await destination.loadCursor()).toBe(T1);
    await destination.write([row(1, T2)], T2);
    expect(await destination.loadCursor()).toBe(T2);
    await destination.close();
  });

  it('keys the lock and the cursor by the resolved table: loads and public.loads are one copy', async () => {
    const first = await openPostgresDestination({ connectionString: url(), table: 'loads' });
    try {
      await expect(openPostgresDestination({ connectionString: url(), table: 'public.loads' })).rejects.toThrow(/another loadfeed sync is writing public\.loads/);
      await first.write([row(1, T1)], T1);
    } finally {
      await first.close();
    }
    const second = await openPostgresDestination({ connectionString: url(), table: 'public.loads' });
    expect(await second.loadCursor()).toBe(T1);
    await second.close();
    expect(await sql(`SELECT feed FROM public.loadfeed_cursor`)).toEqual([{ feed: 'public.loads' }]);
  });

  it.each([
    ['pg_temp.copy', /--table pg_temp\.copy keeps nothing: a temporary table ends with the session/],
    ['unlogged_copy', /--table unlogged_copy keeps nothing: an unlogged table is emptied after a crash/],
  ])('refuses --table %s, which keeps nothing', async (table, message) => {
    await sql('CREATE UNLOGGED TABLE IF NOT EXISTS unlogged_copy (load_number text PRIMARY KEY)');
    await expect(openPostgresDestination({ connectionString: url(), table })).rejects.toThrow(message);
  });
});

describe("--postgres into a loadfeed server's own database", () => {
  it('is refused in one line before anything is written there', async () => {
    const server = withoutPassword(kit.databaseUrl);

    await expect(openPostgresDestination({ connectionString: server, table: 'copy' })).rejects.toThrow(
      /^this is a loadfeed server's own database \(type load_status in schema \w+\): sync into a database of your own$/,
    );
    expect(await sql(`SELECT to_regclass('loadfeed_cursor') AS cursor, to_regclass('copy') AS copy`, [], server)).toEqual([{ cursor: null, copy: null }]);
  });
});

describe('--postgres after the first run', () => {
  it('needs only SELECT, INSERT and UPDATE on its two tables, no CREATE on the schema', async () => {
    const name = await schema();
    const role = `r_${randomBytes(4).toString('hex')}`;
    const first = await openPostgresDestination({ connectionString: url(), table: `${name}.loads` });
    await first.write([row(1, T1)], T1);
    await first.close();
    await sql(`CREATE ROLE ${role} LOGIN PASSWORD 'sync-only'`);
    try {
      await sql(`GRANT USAGE ON SCHEMA ${name} TO ${role}; GRANT SELECT, INSERT, UPDATE ON ${name}.loads, ${name}.loadfeed_cursor TO ${role}`);
      const asRole = new URL(url());
      asRole.username = role;
      asRole.password = 'sync-only';

      const later = await openPostgresDestination({ connectionString: asRole.toString(), table: `${name}.loads` });
      await later.write([row(1, T2, { status: 'Delivered' }), row(2, T2)], T2);
      expect(await later.loadCursor()).toBe(T2);
      await later.close();
      expect(await sql(`SELECT load_number, status FROM ${name}.loads ORDER BY load_number`)).toEqual([
        { load_number: 'L1', status: 'Delivered' },
        { load_number: 'L2', status: 'Available' },
      ]);
    } finally {
      await sql(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    }
  });
});
