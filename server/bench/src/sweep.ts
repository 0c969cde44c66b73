// The database time of a full sweep (every page at pageSize 100): each page's statements run under
// EXPLAIN (ANALYZE, TIMING OFF), which reports the server's own planning and execution time, without the
// network and the client. Pages are sampled every `stride` pages and the sum scaled up, so that the
// baseline's deep pages do not take the run's whole time.
import type pg from 'pg';

export interface Statement {
  sql: string;
  values: unknown[];
}

export interface SweepTime {
  /** Estimated milliseconds for all pages. */
  totalMs: number;
  pagesMeasured: number;
}

interface ExplainRow {
  'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number }];
}

/** The database's planning and execution time of the statements, in milliseconds. */
export async function databaseTime(pool: pg.Pool, statements: readonly Statement[]): Promise<number> {
  let ms = 0;
  for (const { sql, values } of statements) {
    const { rows } = await pool.query<ExplainRow>(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${sql}`, values);
    const [plan] = rows[0]!['QUERY PLAN'];
    ms += plan['Planning Time'] + plan['Execution Time'];
  }
  return ms;
}

export async function sweepDatabaseTime(pool: pg.Pool, pages: number, stride: number, statementsOf: (page: number) => Statement[]): Promise<SweepTime> {
  let sampledMs = 0;
  let pagesMeasured = 0;
  for (let page = 1; page <= pages; page += stride) {
    sampledMs += await databaseTime(pool, statementsOf(page));
    pagesMeasured++;
  }
  return { totalMs: (sampledMs / pagesMeasured) * pages, pagesMeasured };
}
