// What server/DESIGN.md ("Upgrade notes") says of migration 0020 on a big table: the filter indexes built
// first with its CREATE INDEX CONCURRENTLY commands (taken from DESIGN.md itself) are the indexes of
// server/sql/indexes/, the migration keeps them without taking a lock on loads, and an index that a
// concurrent build left invalid is built again.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUT_OFF_INDEXES } from '../../src/db/cut-off-indexes.js';
import { cutOffIndexStatement } from '../../src/db/feed-index.js';
import { migrateSchema } from '../../src/db/migrate.js';
import { applySqlDefinitions, repeatableDefinitions, type SqlDefinition } from '../../src/db/sql-definitions.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const INDEXES = fileURLToPath(new URL('../../sql/indexes/', import.meta.url));
const DESIGN = fileURLToPath(new URL('../../DESIGN.md', import.meta.url));
/** The filter indexes, the status index by its name without the cutoff it carries. */
const FILTER_INDEXES = ['loads_feed_status', 'loads_feed_pickup_day', 'loads_feed_delivery_day'];
const STATUS_INDEX = CUT_OFF_INDEXES.find((index) => index.file === 'loads_feed_status.sql')!;
/** The statements DESIGN.md gives an operator to run before migrating, the cutoff's date still to be written in. */
const PRE_BUILDS = readFileSync(DESIGN, 'utf8').match(/CREATE INDEX CONCURRENTLY [^;]+;/g) ?? [];
/** An index's name without the cutoff it may carry. */
const filterIndexOf = (name: string) => name.replace(/_\d{4}_\d{2}_\d{2}$/, '');

/** The definitions that need none of the counters' tables (migration 0021), nor a function that does. */
function withoutCounters(definitions: SqlDefinition[]): SqlDefinition[] {
  const needed = [/\bfeed_count(s|_changes)\b/];
  let kept = definitions;
  for (let left = Number.POSITIVE_INFINITY; kept.length < left; ) {
    left = kept.length;
    const dropped = definitions.filter((definition) => !kept.includes(definition) || needed.some((name) => name.test(definition.text)));
    for (const { name } of dropped) if (name.startsWith('functions/')) needed.push(new RegExp(`\\b${name.slice('functions/'.length, -'.sql'.length)}\\b`));
    kept = kept.filter((definition) => !dropped.includes(definition));
  }
  return kept;
}

describe('migration 0020 on indexes built first', () => {
  const database = useTestDatabase();
  let client: pg.Client;
  const oids = new Map<string, number>();

  /** The filter indexes there, by FILTER_INDEXES' names. */
  async function indexes(): Promise<Map<string, { name: string; oid: number; valid: boolean; definition: string }>> {
    const { rows } = await client.query<{ name: string; oid: number; valid: boolean; definition: string }>(
      `SELECT c.relname AS name, c.oid::integer AS oid, i.indisvalid AS valid, pg_get_indexdef(c.oid) AS definition
         FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
        WHERE c.relname = ANY ($1::text[]) OR c.relname LIKE 'loads\\_feed\\_status\\_%'`,
      [FILTER_INDEXES],
    );
    expect(new Set(rows.map((row) => filterIndexOf(row.name))).size, rows.map((row) => row.name).join()).toBe(rows.length);
    return new Map(rows.map((index) => [filterIndexOf(index.name), index]));
  }

  /** Runs the next `count` migrations not yet run, and names those it ran. */
  async function migrateNext(count: number): Promise<string[]> {
    const ran = await runner({
      databaseUrl: database.url,
      dir: MIGRATIONS,
      direction: 'up',
      count,
      migrationsTable: 'pgmigrations',
      checkOrder: true,
      singleTransaction: true,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    return ran.map((migration) => migration.name);
  }

  beforeAll(async () => {
    await migrateNext(readdirSync(MIGRATIONS).filter((name) => name.endsWith('.sql') && name < '0020').length);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // The functions and triggers as they stand before the upgrade (here this release's: a migrate that also
    // changes those takes its own locks, as DESIGN.md says of them), but for the counters', whose tables a
    // later migration (0021) makes; the indexes are recorded once 0020 ran.
    await applySqlDefinitions(client, withoutCounters(repeatableDefinitions()), { fixed: [] });
  });
  afterAll(async () => {
    await client?.end();
  });

  it('gives one command a filter index, each building what server/sql/indexes/ defines', async () => {
    expect(PRE_BUILDS).toHaveLength(FILTER_INDEXES.length);
    // The date an operator writes in: the feed index's, which the earlier migrations made.
    const { rows: feedIndex } = await client.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE indexname LIKE 'loads\\_feed\\_since\\_%'");
    expect(feedIndex).toHaveLength(1);
    const date = feedIndex[0]!.name.slice('loads_feed_since_'.length);
    for (const statement of PRE_BUILDS) await client.query(statement.replaceAll('YYYY_MM_DD', date).replaceAll('YYYY-MM-DD', date.replaceAll('_', '-')));
    const built = await indexes();
    expect(built.get('loads_feed_status')?.name).toBe(`loads_feed_status_${date}`);
    for (const name of FILTER_INDEXES) {
      const index = built.get(name)!;
      expect(index.valid).toBe(true);
      oids.set(name, index.oid);
      // The file's definition, made on an empty copy of loads (the temporary schema comes first), rendered alike.
      await client.query('BEGIN');
      try {
        await client.query('CREATE TEMPORARY TABLE loads (LIKE loads) ON COMMIT DROP');
        await client.query(name === 'loads_feed_status' ? cutOffIndexStatement(STATUS_INDEX, index.name) : readFileSync(`${INDEXES}${name}.sql`, 'utf8'));
        const { rows } = await client.query<{ definition: string }>(`SELECT pg_get_indexdef(format('pg_temp.%I', $1::text)::regclass) AS definition`, [index.name]);
        const body = (definition: string) => definition.replace(/^CREATE INDEX \S+ ON \S+ /, '');
        expect(body(index.definition)).toBe(body(rows[0]!.definition));
      } finally {
        await client.query('ROLLBACK');
      }
    }
  });

  // 0020 alone: 0021 counts the loads under a lock that holds writers back (DESIGN.md), so a whole
  // migrate waits for a writer in flight there, not here.
  it('keeps them without a lock on loads: a writer in flight does not hold the migration back', async () => {
    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('LOCK TABLE loads IN ROW EXCLUSIVE MODE');
      const migrated = migrateNext(1);
      const late = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 15_000));
      expect(await Promise.race([migrated.then(() => 'migrated' as const), late])).toBe('migrated');
      expect(await migrated).toEqual(['0020_feed-filter-indexes']);
    } finally {
      await writer.query('ROLLBACK');
      await writer.end();
    }
    const after = await indexes();
    for (const name of FILTER_INDEXES) expect(after.get(name)?.oid).toBe(oids.get(name));
  }, 30_000);

  it('builds again an index that a failed concurrent build left invalid', async () => {
    // What a CREATE INDEX CONCURRENTLY that failed or was cancelled leaves: an index marked invalid.
    await client.query('UPDATE pg_index SET indisvalid = false WHERE indexrelid = $1::regclass', [(await indexes()).get('loads_feed_status')!.name]);
    await client.query("DELETE FROM pgmigrations WHERE name = '0020_feed-filter-indexes'");
    expect(await migrateNext(1)).toEqual(['0020_feed-filter-indexes']);
    const after = await indexes();
    for (const name of FILTER_INDEXES) expect(after.get(name)?.valid).toBe(true);
    expect(after.get('loads_feed_pickup_day')!.oid).toBe(oids.get('loads_feed_pickup_day'));
    expect(after.get('loads_feed_status')!.oid).not.toBe(oids.get('loads_feed_status'));
  });

  it('then migrates to this release, its definitions all applied, the indexes kept', async () => {
    const before = await indexes();
    const report = await migrateSchema(database.url);
    expect(report.migrations).toContain('0021_feed-counts');
    expect(report.definitions.left).toEqual([]);
    const after = await indexes();
    for (const name of FILTER_INDEXES) expect(after.get(name)?.oid).toBe(before.get(name)?.oid);
  });
});
