// Upkeep of the feed index (see migrations/0002_loads.sql): a partial index whose predicate holds a
// fixed pickup cutoff. Any cutoff at or before the window's start keeps the index usable, because the
// queries' own cutoff (a bound parameter) implies the predicate; a cutoff far behind the window only
// makes the index keep rows that aged out. So the server re-creates it once a month with a later
// cutoff: the new index is built concurrently before the old one is dropped, queries use one or the
// other throughout, and no operator has a chore. Instances race for an advisory lock; one does the work.
import type pg from 'pg';

const INDEX_PREFIX = 'loads_feed_since_';
/** Any fixed number, distinct from node-pg-migrate's lock, naming "the feed index is being rebuilt". */
const UPKEEP_LOCK = 4_714_172_026;
/** pg's per-query deadline cannot be switched off for one query, only made long: a day. */
const NO_DEADLINE_MS = 86_400_000;

/** The cutoff an up-to-date feed index has: the first of the month 13 months before `now` (UTC). */
export function feedIndexCutoff(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 13, 1));
}

function indexName(cutoff: Date): string {
  return INDEX_PREFIX + cutoff.toISOString().slice(0, 10).replaceAll('-', '_');
}

export interface FeedIndexUpkeep {
  /** The index that now serves the feed. */
  current: string;
  /** Whether this call built it. */
  rebuilt: boolean;
}

export interface UpkeepOptions {
  /** Cancels a build under way (a server stopping need not wait minutes for it); the next run redoes it. */
  signal?: AbortSignal;
}

/**
 * Makes sure the feed index for `now`'s cutoff exists and drops older ones. Cheap when nothing is due
 * (one catalog query). Returns without waiting when another instance holds the upkeep lock.
 */
export async function keepFeedIndexCurrent(pool: pg.Pool, now: Date, { signal }: UpkeepOptions = {}): Promise<FeedIndexUpkeep> {
  const wanted = indexName(feedIndexCutoff(now));
  const existing = await feedIndexes((text, values) => pool.query(text, values));
  if (existing.length === 1 && existing[0]?.name === wanted && existing[0].valid) return { current: wanted, rebuilt: false };
  // CREATE INDEX CONCURRENTLY cannot run in a transaction, so this holds one session for the whole job.
  const client = await pool.connect();
  // The session is destroyed, not returned to the pool, when anything failed (it may still hold the
  // upkeep lock or owe a reply), and always once its timeouts are lifted for the build.
  let destroy: Error | boolean = false;
  let pid: number | undefined;
  const cancel = () => {
    if (pid !== undefined) pool.query('SELECT pg_cancel_backend($1::integer)', [pid]).catch(() => {});
  };
  signal?.addEventListener('abort', cancel, { once: true });
  /**
   * Each statement checks for an abort first: a cancel reaches only the statement running at the time.
   * The index builds and drops (`ddl`) may run for minutes; the others keep the pool's deadline.
   */
  const run = async <R extends pg.QueryResultRow>(text: string, values?: unknown[], { ddl = false } = {}): Promise<pg.QueryResult<R>> => {
    signal?.throwIfAborted();
    const config = ddl ? { text, values, query_timeout: NO_DEADLINE_MS } : { text, values };
    return client.query<R>(config);
  };
  try {
    const { rows: session } = await run<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    pid = session[0]!.pid;
    const { rows } = await run<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [UPKEEP_LOCK]);
    if (!rows[0]?.locked) return { current: existing.at(-1)?.name ?? wanted, rebuilt: false };
    try {
      // A concurrent build waits for every transaction that wrote to loads, and may take minutes: the
      // pool's statement and lock timeouts, meant for requests, do not apply to it.
      destroy = true;
      await run("SELECT set_config('statement_timeout', '0', false), set_config('lock_timeout', '0', false)");
      let rebuilt = false;
      const indexes = await feedIndexes(run);
      const present = indexes.find((index) => index.name === wanted);
      if (present && !present.valid) await run(`DROP INDEX CONCURRENTLY IF EXISTS ${wanted}`, [], { ddl: true });
      if (!present?.valid) {
        const cutoff = `${wanted.slice(INDEX_PREFIX.length).replaceAll('_', '-')}T00:00:00Z`;
        // Identifiers and the cutoff cannot be parameters of DDL; both are built here from a Date.
        await run(
          `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${wanted} ON loads (customer_id, updated_at, id)
             INCLUDE (scheduled_pickup_date, scheduled_delivery_date, status)
             WHERE scheduled_pickup_date >= '${cutoff}'::timestamptz`,
          [],
          { ddl: true },
        );
        rebuilt = true;
      }
      for (const old of indexes.filter((index) => index.name !== wanted)) {
        await run(`DROP INDEX CONCURRENTLY IF EXISTS ${old.name}`, [], { ddl: true });
      }
      return { current: wanted, rebuilt };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [UPKEEP_LOCK]);
    }
  } catch (error) {
    destroy = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
    client.release(destroy);
  }
}

interface FeedIndex {
  name: string;
  /** False for an index left behind by an interrupted concurrent build; the next run replaces it. */
  valid: boolean;
}

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

async function feedIndexes(query: Query): Promise<FeedIndex[]> {
  const { rows } = await query<FeedIndex>(
    `SELECT c.relname AS name, i.indisvalid AS valid
       FROM pg_index AS i
       JOIN pg_class AS c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'loads'::regclass AND c.relname LIKE $1::text
      ORDER BY c.relname`,
    [`${INDEX_PREFIX}%`],
  );
  return rows;
}
