// The feed_query value is positional text (src/loads/feed-query.ts): its attribute list must be the type's,
// in the type's order, and every filter the contract declares must land in its own attribute. Checked on
// a migrated database, so that a filter added to one side only, an attribute out of place or a filter
// feed_loads does not read, fails here.
import { LIST_LOADS_FILTERS, type FilterDeclaration, type LoadFilters } from '@loadfeed/spec';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { attributeOf, FEED_QUERY_ATTRIBUTES, feedQueryValue } from '../../src/loads/feed-query.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

const SCOPE_ATTRIBUTES = ['customer_id', 'window_start', 'settled_through'];

/** A value of each filter that no other filter has, as the reader hands it on. */
function distinctValue({ kind, name, values }: FilterDeclaration, index: number): string | string[] {
  if (kind === 'set') return (values ?? []).slice(0, 2);
  if (kind === 'exact') return `${name} "${index}", \\ (odd)`;
  return new Date(Date.UTC(2026, 0, 1 + index, index)).toISOString();
}

describe('feed_query, the page statements\' one parameter', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;

  beforeAll(async () => {
    await migrate(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('is built from the type\'s attributes, in the type\'s order', async () => {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT attname AS name FROM pg_attribute
        WHERE attrelid = 'feed_query'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    );
    expect(rows.map((row) => row.name)).toEqual([...FEED_QUERY_ATTRIBUTES]);
  });

  it('has an attribute for every filter the contract declares, and no other but the scope\'s', () => {
    const filterAttributes = LIST_LOADS_FILTERS.map((filter) => attributeOf(filter.key));
    expect([...FEED_QUERY_ATTRIBUTES].sort()).toEqual([...SCOPE_ATTRIBUTES, ...filterAttributes].sort());
  });

  it('is read by feed_loads: every filter\'s attribute beside its column', async () => {
    const { rows } = await pool.query<{ body: string }>("SELECT pg_get_functiondef('feed_loads(feed_query)'::regprocedure) AS body");
    const lines = rows[0]!.body.split('\n');
    for (const filter of LIST_LOADS_FILTERS) {
      const [attribute, column] = [new RegExp(`\\bq\\.${attributeOf(filter.key)}\\b`), new RegExp(`\\bl\\.${filter.column}\\b`)];
      expect(lines.some((line) => attribute.test(line) && column.test(line)), `${filter.name}: q.${attributeOf(filter.key)} and l.${filter.column} on one line`).toBe(true);
    }
  });

  it('carries each filter\'s value in its own attribute, and an absent filter as NULL', async () => {
    const filters = Object.fromEntries(LIST_LOADS_FILTERS.map((filter, index) => [filter.key, distinctValue(filter, index)]));
    const scope = { customerId: '42', windowStart: new Date('2025-06-01T00:00:00.000Z'), settledThrough: '2026-06-01T12:00:00.000Z' };
    const read = async (given: Record<string, unknown>) =>
      (await pool.query<{ q: Record<string, unknown> }>('SELECT to_jsonb($1::feed_query) AS q', [feedQueryValue(scope, { page: 1, pageSize: 1, ...given } as LoadFilters)])).rows[0]!.q;
    const query = await read(filters);
    for (const filter of LIST_LOADS_FILTERS) {
      const stored = query[attributeOf(filter.key)];
      const given = filters[filter.key];
      if (filter.kind === 'set' || filter.kind === 'exact') expect(stored, filter.name).toEqual(given);
      else expect(Date.parse(String(stored)), filter.name).toBe(Date.parse(String(given)));
    }
    expect(query).toMatchObject({ customer_id: 42 });
    expect(Date.parse(String(query.window_start))).toBe(scope.windowStart.getTime());
    expect(Date.parse(String(query.settled_through))).toBe(Date.parse(scope.settledThrough));
    const none = await read({});
    for (const filter of LIST_LOADS_FILTERS) expect(none[attributeOf(filter.key)], filter.name).toBeNull();
  });
});
