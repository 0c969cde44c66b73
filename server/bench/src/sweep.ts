// The database time of a full sweep (every page at pageSize 100): each page's statements run under
// EXPLAIN (ANALYZE, TIMING OFF), which reports the server's own planning and execution time, without the
// network and the client. Pages are sampled every `stride` pages and the sum scaled up, so that the
// baseline's deep pages do not take the run's whole time.
import type pg from 'pg';

export interface Statement {
  sql: string;
  values: unknown[];
}

interface ExplainRow {
  'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number }];
}

/** The database's planning and execution time of the statements, in milliseconds. */
export async function databaseTime(pool: pg.Pool | pg.PoolClient, statements: readonly Statement[]): Promise<number> {
  let ms = 0;
  for (const { sql, values } of statements) {
    const { rows } = await pool.query<ExplainRow>(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${sql}`, values);
    const [plan] = rows[0]!['QUERY PLAN'];
    ms += plan['Planning Time'] + plan['Execution Time'];
  }
  return ms;
}

/**
 * Estimated milliseconds of a full sweep for each side. The sides take turns page by page, so that other
 * work on a shared machine weighs on both alike.
 */
export async function sweepDatabaseTime<Side extends string>(
  pool: pg.Pool,
  pages: number,
  stride: number,
  sides: Readonly<Record<Side, (page: number) => Statement[]>>,
): Promise<Record<Side, number>> {
  const names = Object.keys(sides) as Side[];
  const sampled = Object.fromEntries(names.map((name) => [name, 0])) as Record<Side, number>;
  let pagesMeasured = 0;
  for (let page = 1; page <= pages; page += stride) {
    for (const name of names) sampled[name] += await databaseTime(pool, sides[name](page));
    pagesMeasured++;
  }
  return Object.fromEntries(names.map((name) => [name, (sampled[name] / pagesMeasured) * pages])) as Record<Side, number>;
}
