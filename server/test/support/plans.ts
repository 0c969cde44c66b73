// What the planner does with the feed's statements: a feed large enough that it prefers an index,
// and the nodes of an EXPLAIN (FORMAT JSON) plan to look for that index in.
import type pg from 'pg';
import type { TestApp } from './app.js';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** Every node of the plan of `sql`, the top one first. `explain` adds options such as ANALYZE. */
export async function planNodes(pool: pg.Pool | pg.PoolClient, sql: string, values: unknown[], explain = 'FORMAT JSON'): Promise<PlanNode[]> {
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (${explain}) ${sql}`, values);
  const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
  return nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
}

/** `rowsPerCustomer` loads for each of the customers 'acme' and 'other', picked up over the last `days` days. */
export async function seedPlannerSizedFeed(app: TestApp, rowsPerCustomer: number, days: number): Promise<void> {
  await app.customer('acme');
  await app.customer('other');
  await app.pool.query(
    `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, scheduled_delivery_date)
     SELECT c.id, c.code || '-' || n, 'Delivered', now() - (n % $2::int) * interval '1 day', now() - (n % $2::int) * interval '1 day' + interval '2 days'
       FROM customers AS c, generate_series(1, $1::int) AS n`,
    [rowsPerCustomer, days],
  );
  await app.pool.query('VACUUM ANALYZE loads');
}

/** The internal id of the customer 'acme' that seedPlannerSizedFeed made. */
export async function acmeId(app: TestApp): Promise<string> {
  const { rows } = await app.pool.query<{ id: string }>("SELECT id::text FROM customers WHERE code = 'acme'");
  return rows[0]!.id;
}
