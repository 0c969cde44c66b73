// server/sql/README.md: the versioned migrations, then today's definitions applied where their text
// changed. A database upgraded through every release and a fresh one end with the same schema; each
// function, trigger, type and index has its file, named after it; the fixed files (types, indexes) say
// what the versioned migrations made.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { CUT_OFF_INDEXES, cutOffIndexOf } from '../../src/db/cut-off-indexes.js';
import { migrate } from '../../src/db/migrate.js';
import { applySqlDefinitions, repeatableDefinitions, SQL_DIR } from '../../src/db/sql-definitions.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { catalogOf } from '../support/catalog.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const VERSIONED = readdirSync(MIGRATIONS).filter((name) => name.endsWith('.sql')).length;
const filesUnder = (folder: string) => readdirSync(join(SQL_DIR, folder)).filter((name) => name.endsWith('.sql')).map((name) => `${folder}/${name}`);

async function connected<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

describe('the schema as SQL', () => {
  const fresh = useTestDatabase();
  const upgraded = useTestDatabase();

  beforeAll(async () => {
    await migrate(fresh.url);
    // Each release ran its versioned migrations, and none before this one had server/sql: one migration
    // at a time is every release boundary there was.
    for (let step = 0; step < VERSIONED; step += 1) {
      await runner({
        databaseUrl: upgraded.url,
        dir: MIGRATIONS,
        direction: 'up',
        count: 1,
        migrationsTable: 'pgmigrations',
        checkOrder: true,
        singleTransaction: true,
        logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
    }
  });

  it('a database upgraded through every release and a fresh one end with the same schema', async () => {
    expect(await migrate(upgraded.url)).toEqual([]);
    const [upgradedCatalog, freshCatalog] = await Promise.all([connected(upgraded.url, catalogOf), connected(fresh.url, catalogOf)]);
    expect(upgradedCatalog).toEqual(freshCatalog);
    expect(Object.keys(freshCatalog.functions).length).toBeGreaterThan(15);
  });

  it('hold each function and trigger in a file named after it, listed once in order.txt', async () => {
    const listed = repeatableDefinitions().map((definition) => definition.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...filesUnder('functions'), ...filesUnder('triggers')].sort());
    const { functions, triggers } = await connected(fresh.url, catalogOf);
    const functionNames = new Set(Object.keys(functions).map((key) => key.slice(0, key.indexOf('('))));
    expect([...functionNames].map((name) => `functions/${name}.sql`).sort()).toEqual(filesUnder('functions').sort());
    expect(Object.keys(triggers).map((name) => `triggers/loads.${name}.sql`).sort()).toEqual(filesUnder('triggers').sort());
    for (const name of functionNames) {
      expect(readFileSync(join(SQL_DIR, 'functions', `${name}.sql`), 'utf8')).toContain(`CREATE OR REPLACE FUNCTION ${name}(`);
    }
  });

  it('hold each type and index the migrations made in a file named after it, saying what they made', async () => {
    await connected(fresh.url, async (client) => {
      const { types, indexes, constraints } = await catalogOf(client);
      const constraintIndexes = new Set(Object.keys(constraints).map((key) => key.slice(key.indexOf('.') + 1)));
      // A cut-off index's name carries its cutoff; its file is named after the index it is a version of.
      const ownIndexes = Object.keys(indexes).filter((name) => !constraintIndexes.has(name) && cutOffIndexOf(name) === undefined);
      const cutOff = Object.keys(indexes).flatMap((name) => cutOffIndexOf(name)?.file ?? []);
      expect(cutOff.sort()).toEqual(CUT_OFF_INDEXES.map((index) => index.file).sort());
      expect([...ownIndexes.map((name) => `indexes/${name}.sql`), ...cutOff.map((file) => `indexes/${file}`)].sort()).toEqual(filesUnder('indexes').sort());
      expect(Object.keys(types).map((name) => `types/${name}.sql`).sort()).toEqual(filesUnder('types').sort());
      // Each file, run where its object was taken away, makes the object the migrations made.
      for (const name of ownIndexes) {
        await client.query('BEGIN');
        try {
          await client.query(`DROP INDEX ${name}`);
          await client.query(readFileSync(join(SQL_DIR, 'indexes', `${name}.sql`), 'utf8'));
          expect((await catalogOf(client)).indexes[name]).toBe(indexes[name]);
        } finally {
          await client.query('ROLLBACK');
        }
      }
      for (const file of filesUnder('types')) {
        await client.query('BEGIN');
        try {
          await client.query('CREATE SCHEMA scratch');
          await client.query("SELECT set_config('search_path', 'scratch, public', true)");
          for (const each of filesUnder('types')) await client.query(readFileSync(join(SQL_DIR, each), 'utf8'));
          const name = file.slice('types/'.length, -'.sql'.length);
          const { rows } = await client.query<{ made: string }>(
            `SELECT coalesce((SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum AS e WHERE e.enumtypid = t.oid),
                             (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ',' ORDER BY a.attnum)
                                FROM pg_attribute AS a WHERE a.attrelid = t.typrelid AND a.attnum > 0)) AS made
               FROM pg_type AS t WHERE t.typnamespace = 'scratch'::regnamespace AND t.typname = $1::text`,
            [name],
          );
          expect(`${types[name]!.slice(0, 3)}${rows[0]!.made.replace(/\b(scratch|public)\./g, '')}`).toBe(types[name]);
        } finally {
          await client.query('ROLLBACK');
        }
      }
    });
  });

  it('have no function of server/sql behind stored data (an index expression or predicate, a generated column)', async () => {
    const { rows } = await connected(fresh.url, (client) =>
      client.query<{ dependent: string; function: string }>(`
        SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS dependent, p.proname AS function
          FROM pg_depend AS d JOIN pg_proc AS p ON d.refclassid = 'pg_proc'::regclass AND d.refobjid = p.oid
         WHERE d.classid IN ('pg_class'::regclass, 'pg_attrdef'::regclass) AND p.pronamespace = 'public'::regnamespace`),
    );
    expect(rows).toEqual([]);
  });

  it('apply a changed file again, and an unchanged one not', async () => {
    await connected(fresh.url, async (client) => {
      const before = new Map((await client.query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM sql_definitions')).rows.map((row) => [row.name, row.applied_at.getTime()]));
      expect((await applySqlDefinitions(client)).applied).toEqual([]);
      const definitions = repeatableDefinitions().map((definition) =>
        definition.name === 'functions/feed_state.sql'
          ? { ...definition, text: definition.text.replace('WHERE v.customer_id = p_customer_id', 'WHERE v.customer_id = p_customer_id -- changed'), checksum: 'changed' }
          : definition,
      );
      expect((await applySqlDefinitions(client, definitions)).applied).toEqual(['functions/feed_state.sql']);
      expect((await client.query<{ source: string }>("SELECT prosrc AS source FROM pg_proc WHERE proname = 'feed_state'")).rows[0]!.source).toContain('-- changed');
      const after = new Map((await client.query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM sql_definitions')).rows.map((row) => [row.name, row.applied_at.getTime()]));
      for (const [name, at] of before) {
        if (name === 'functions/feed_state.sql') expect(after.get(name)).toBeGreaterThan(at);
        else expect(after.get(name)).toBe(at);
      }
      // Back to the file's text: the recorded checksum differs from the file's, so it is applied again.
      expect((await applySqlDefinitions(client)).applied).toEqual(['functions/feed_state.sql']);
      expect((await client.query<{ source: string }>("SELECT prosrc AS source FROM pg_proc WHERE proname = 'feed_state'")).rows[0]!.source).not.toContain('-- changed');
    });
  });

  it('apply a changed file once when several instances migrate at the same time', async () => {
    await connected(fresh.url, (client) => client.query("UPDATE sql_definitions SET checksum = 'before' WHERE name IN ('functions/load_json.sql', 'triggers/loads.loads_bump_feed_versions.sql')"));
    const lines: string[] = [];
    const runs = await Promise.all([1, 2, 3].map(() => migrate(fresh.url, { log: (line) => lines.push(line) })));
    expect(runs).toEqual([[], [], []]);
    expect(lines.filter((line) => line.startsWith('> definition')).sort()).toEqual(['> definition functions/load_json.sql', '> definition triggers/loads.loads_bump_feed_versions.sql']);
    const { rows } = await connected(fresh.url, (client) => client.query<{ stale: number }>("SELECT count(*)::int AS stale FROM sql_definitions WHERE checksum = 'before'"));
    expect(rows[0]!.stale).toBe(0);
  });
});
