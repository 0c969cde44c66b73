// Stamps and the settled horizon are milliseconds of the database's clock (migrations/0006): a row stamped
// in the current millisecond is past the horizon, and a second write in it could carry the same stamp,
// until that clock moves on. The test server's importLoads and the server's own tests wait for exactly
// that, asking the database, instead of sleeping.
import type pg from 'pg';

type Queryable = Pick<pg.Pool | pg.Client, 'query'>;

/** Resolves once the database's clock, at millisecond precision, is past the millisecond it read first. */
export async function nextDatabaseMillisecond(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ now: string }>("SELECT date_trunc('milliseconds', clock_timestamp())::text AS now");
  const read = rows[0]!.now;
  for (;;) {
    const passed = await db.query<{ passed: boolean }>("SELECT date_trunc('milliseconds', clock_timestamp()) > $1::timestamptz AS passed", [read]);
    if (passed.rows[0]!.passed) return;
  }
}
