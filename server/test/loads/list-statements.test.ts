// The four statements of listLoads read one feed. A count kept from one of them is used with a page read
// by another (list.ts), so they must select the same rows: each takes them from feed_loads called with the
// same parameters, and its version from feed_state, and the page statements write the page's JSON alike.
// An edit to one statement that the others do not share fails here, before any database is involved.
import { describe, expect, it } from 'vitest';
import { COUNT_SQL, COUNTED_PAGE_SQL, PAGE_FROM_END_SQL, PAGE_FROM_START_SQL } from '../../src/loads/list-statements.js';

const STATEMENTS = { COUNTED_PAGE_SQL, PAGE_FROM_START_SQL, PAGE_FROM_END_SQL, COUNT_SQL };
const PAGE_STATEMENTS = { COUNTED_PAGE_SQL, PAGE_FROM_START_SQL, PAGE_FROM_END_SQL };

const normalized = (sql: string): string => sql.replace(/\s+/g, ' ').trim();
/** The argument lists of every call of `name` in the statement, whitespace normalized. */
const callsOf = (sql: string, name: string): string[] => [...normalized(sql).matchAll(new RegExp(`\\b${name}\\(([^)]*)\\)`, 'g'))].map((call) => call[1]!);
const each = <T>(statements: Record<string, string>, read: (sql: string) => T): Record<string, T> =>
  Object.fromEntries(Object.entries(statements).map(([name, sql]) => [name, read(sql)]));

describe('the statements of listLoads', () => {
  it('all read their rows from feed_loads, with the feed\'s eleven parameters in order, the same in every call', () => {
    const [feed] = callsOf(COUNT_SQL, 'feed_loads');
    expect([...feed!.matchAll(/\$(\d+)::/g)].map((parameter) => Number(parameter[1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(each(STATEMENTS, (sql) => callsOf(sql, 'feed_loads'))).toEqual({
      COUNTED_PAGE_SQL: [feed, feed],
      PAGE_FROM_START_SQL: [feed],
      PAGE_FROM_END_SQL: [feed],
      COUNT_SQL: [feed],
    });
  });

  it('all read the feed version and latest stamp from feed_state of the same customer', () => {
    expect(each(STATEMENTS, (sql) => callsOf(sql, 'feed_state'))).toEqual(each(STATEMENTS, () => ['$1::bigint']));
  });

  it('write the page\'s loads as load_json makes them, in (updated_at, id) order, the same in every page statement', () => {
    const rowsOf = (sql: string) => /rows AS \((.*?)\) SELECT /.exec(normalized(sql))?.[1];
    const rows = rowsOf(PAGE_FROM_START_SQL);
    expect(rows).toContain("string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id)");
    expect(each(PAGE_STATEMENTS, rowsOf)).toEqual(each(PAGE_STATEMENTS, () => rows));
  });
});
