// Who holds a customer's feed back: the transactions announced as its writers (sql/functions/announce_feed_writer.sql), as the
// operator's `loadfeed-server feed-writers` lists them. A writer holds the customer's settled horizon at
// its first stamp until it commits or rolls back; a writer of more than 16 customers holds every
// customer's. What pg_stat_activity says of the holder (role, application, state) shows where the server's
// role may read it: its own sessions, or every session with pg_read_all_stats.
import type pg from 'pg';
import { customerIdOf } from './customers.js';

export interface FeedWriter {
  /** The holder's backend pid; null for a prepared transaction. */
  pid: number | null;
  /** The customers it holds back (codes), or 'every customer'. */
  customers: string[] | 'every customer';
  /** Its first stamp: the customers' horizons stay below it. */
  holdingSince: Date;
  /** How long it has held them, in milliseconds. */
  ageMs: number;
  transactionStart: Date | null;
  role: string | null;
  application: string | null;
  state: string | null;
}

const WRITERS_SQL = `
SELECT w.pid, w.slot = 65535 AS every_customer, w.first_stamp,
       (extract(epoch FROM clock_timestamp() - w.first_stamp) * 1000)::float8 AS age_ms,
       w.transaction_start, a.usename AS role, a.application_name AS application, a.state,
       CASE WHEN w.slot <> 65535 THEN
         ARRAY(SELECT c.code FROM customers AS c WHERE feed_writer_slot(c.id) = w.slot ORDER BY c.id)
       END AS customers
  FROM feed_writers(date_trunc('milliseconds', clock_timestamp())) AS w
  LEFT JOIN pg_catalog.pg_stat_activity AS a ON a.pid = w.pid
 WHERE $1::bigint IS NULL OR w.slot IN (feed_writer_slot($1::bigint), 65535)
 ORDER BY w.first_stamp, w.pid`;

interface WriterRow {
  pid: number | null;
  every_customer: boolean;
  first_stamp: Date;
  age_ms: number;
  transaction_start: Date | null;
  role: string | null;
  application: string | null;
  state: string | null;
  customers: string[] | null;
}

/** Every writer holding a feed back now, oldest first; with `customerCode`, those holding that customer's. */
export async function listFeedWriters(pool: pg.Pool, customerCode?: string): Promise<FeedWriter[]> {
  const customerId = customerCode === undefined ? null : await customerIdOf(pool, customerCode);
  const { rows } = await pool.query<WriterRow>(WRITERS_SQL, [customerId]);
  return rows
    // Customer 0 is the start-up probe's (no customer has it): a writer of it alone holds nobody back.
    .filter((row) => row.every_customer || (row.customers?.length ?? 0) > 0)
    .map((row) => ({
      pid: row.pid,
      customers: row.every_customer ? 'every customer' : row.customers!,
      holdingSince: row.first_stamp,
      ageMs: Math.round(row.age_ms),
      transactionStart: row.transaction_start,
      role: row.role,
      application: row.application,
      state: row.state,
    }));
}
