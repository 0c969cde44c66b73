// Upkeep of the feed index (its definition: sql/indexes/loads_feed_since.sql): a partial index whose
// predicate holds a fixed pickup cutoff. Any cutoff at or before the window's start keeps the index usable, because the
// queries' own cutoff (a bound parameter) implies the predicate; a cutoff far behind the window only
// makes the index keep rows that aged out. So the server re-creates it once a month with a later
// cutoff: the new index is built concurrently before the old one is dropped, queries use one or the
// other throughout, and no operator has a chore. It is re-created too when the index there is not what
// the definition's file makes (the file changed), so a change of the index is a change of that file.
// Instances race for an advisory lock; one does the work.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { SQL_DIR } from './sql-definitions.js';

/** Also read by sql/functions/feed_index_cutoff.sql, which takes the cutoff back from the name. */
const INDEX_PREFIX = 'loads_feed_since_';
/** Any fixed number, distinct from node-pg-migrate's lock, naming "the feed index is being rebuilt". */
const UPKEEP_LOCK = 4_714_172_026;
/** The index's definition, without its comments; :name and :cutoff are filled in by definitionOf. */
const DEFINITION = readFileSync(join(SQL_DIR, 'indexes', 'loads_feed_since.sql'), 'utf8').replace(/^--.*\n/gm, '');
/** pg's per-query deadline cannot be switched off for one query, only made long: a day. */
const NO_DEADLINE_MS = 86_400_000;

/** The cutoff an up-to-date feed index has: the first of the month 13 months before `now` (UTC). */
export function feedIndexCutoff(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 13, 1));
}

function indexName(cutoff: Date): string {
  return INDEX_PREFIX + cutoff.toISOString().slice(0, 10).replaceAll('-', '_');
}

/** The statement that makes the index `name` whose cutoff `name` carries (both built here from a Date:
 * identifiers and the cutoff cannot be parameters of DDL). */
function definitionOf(name: string, { concurrently = false } = {}): string {
  const cutoff = `${name.slice(INDEX_PREFIX.length, INDEX_PREFIX.length + 10).replaceAll('_', '-')}T00:00:00Z`;
  const statement = DEFINITION.replace(':name', name).replace(':cutoff', `'${cutoff}'`);
  return concurrently ? statement.replace(/^CREATE INDEX /m, 'CREATE INDEX CONCURRENTLY ') : statement;
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
 * Makes sure the feed index for `now`'s cutoff exists, as its file defines it, and drops older ones. Cheap
 * when nothing is due (a catalog query, and the definition compared on an empty table). Returns without waiting when another instance holds the upkeep lock.
 */
export async function keepFeedIndexCurrent(pool: pg.Pool, now: Date, { signal }: UpkeepOptions = {}): Promise<FeedIndexUpkeep> {
  const wanted = indexName(feedIndexCutoff(now));
  const existing = await feedIndexes((text, values) => pool.query(text, values));
  if (existing.length === 1 && existing[0]?.name === wanted && existing[0].valid && (await onPooledSession(pool, (session) => madeAsDefined(session, wanted)))) {
    return { current: wanted, rebuilt: false };
  }
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
      const replacement = `${wanted}_replacement`;
      // What an interrupted run left: an invalid build, or a replacement never put in place.
      for (const left of indexes.filter((index) => (index.name === wanted && !index.valid) || index.name === replacement)) {
        await run(`DROP INDEX CONCURRENTLY IF EXISTS ${left.name}`, [], { ddl: true });
      }
      if (!present?.valid) {
        await run(definitionOf(wanted, { concurrently: true }), [], { ddl: true });
        rebuilt = true;
      } else if (!(await madeAsDefined(client, wanted))) {
        // A changed definition, same cutoff: the new index is built beside the old one, which the
        // queries use until it is dropped, and then takes its name.
        await run(definitionOf(replacement, { concurrently: true }), [], { ddl: true });
        await run(`DROP INDEX CONCURRENTLY IF EXISTS ${wanted}`, [], { ddl: true });
        await run(`ALTER INDEX ${replacement} RENAME TO ${wanted}`, [], { ddl: true });
        rebuilt = true;
      }
      for (const old of indexes.filter((index) => index.name !== wanted && index.name !== replacement)) {
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

/**
 * Whether the index `name` is what the definition's file makes: PostgreSQL's own rendering of both is
 * compared, the file's made on an empty copy of loads in a transaction rolled back.
 */
async function madeAsDefined(session: pg.ClientBase, name: string): Promise<boolean> {
  await session.query('BEGIN');
  try {
    // `loads` in the definition now names this session's empty copy (the temporary schema comes first).
    await session.query('CREATE TEMPORARY TABLE loads (LIKE loads) ON COMMIT DROP');
    await session.query(definitionOf(name));
    const { rows } = await session.query<{ wanted: string; present: string }>(
      `SELECT pg_get_indexdef(format('pg_temp.%I', $1::text)::regclass) AS wanted,
              pg_get_indexdef(format('%I.%I', current_schema(), $1::text)::regclass) AS present`,
      [name],
    );
    const body = (definition: string) => definition.replace(/^CREATE INDEX \S+ ON \S+ /, '');
    return body(rows[0]!.wanted) === body(rows[0]!.present);
  } finally {
    await session.query('ROLLBACK');
  }
}

/** Runs `work` on a session of the pool, destroyed instead of returned when anything failed. */
async function onPooledSession<T>(pool: pg.Pool, work: (session: pg.PoolClient) => Promise<T>): Promise<T> {
  const session = await pool.connect();
  let broken: Error | boolean = false;
  try {
    return await work(session);
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    session.release(broken);
  }
}
