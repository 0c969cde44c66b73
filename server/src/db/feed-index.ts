// Upkeep of the cut-off indexes (cut-off-indexes.ts: the feed index, sql/indexes/loads_feed_since.sql, and
// the status index, loads_feed_status.sql): partial indexes whose predicate holds a fixed pickup cutoff.
// Any cutoff at or before the window's start keeps an index usable, because the queries' own cutoff (the
// window's start, a constant of each plan) implies the predicate; a cutoff far behind the window only
// makes the index keep rows that aged out, which a walk of the index reads before the window's. So the
// server re-creates them once a month with a later cutoff: each new index is built concurrently before
// the old one is dropped, queries use one or the other throughout, and no operator has a chore. One is
// re-created too when the index there is not what its file makes (the file changed), so a change of the
// index is a change of that file. Instances race for an advisory lock; one does the work.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { CUT_OFF_INDEXES, cutOffIndexOf, type CutOffIndex } from './cut-off-indexes.js';
import { SQL_DIR } from './sql-definitions.js';

/** Any fixed number, distinct from node-pg-migrate's lock, naming "the cut-off indexes are being rebuilt". */
const UPKEEP_LOCK = 4_714_172_026;
/** Each index's definition, without its comments; :name and :cutoff are filled in by cutOffIndexStatement. */
const DEFINITIONS = new Map(CUT_OFF_INDEXES.map((index) => [index, readFileSync(join(SQL_DIR, 'indexes', index.file), 'utf8').replace(/^--.*\n/gm, '')]));
/** pg's per-query deadline cannot be switched off for one query, only made long: a day. */
const NO_DEADLINE_MS = 86_400_000;

/** The cutoff an up-to-date cut-off index has: the first of the month 13 months before `now` (UTC). */
export function feedIndexCutoff(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 13, 1));
}

/** The name of `index` made with `cutoff`. */
export function cutOffIndexName(index: CutOffIndex, cutoff: Date): string {
  return index.prefix + cutoff.toISOString().slice(0, 10).replaceAll('-', '_');
}

/** The statement that makes the index `name`, a version of `index` whose cutoff `name` carries (both built
 * here from a Date: identifiers and the cutoff cannot be parameters of DDL). */
export function cutOffIndexStatement(index: CutOffIndex, name: string, { concurrently = false } = {}): string {
  const cutoff = `${name.slice(index.prefix.length, index.prefix.length + 10).replaceAll('_', '-')}T00:00:00Z`;
  const statement = DEFINITIONS.get(index)!.replace(':name', name).replace(':cutoff', `'${cutoff}'`);
  return concurrently ? statement.replace(/^CREATE INDEX /m, 'CREATE INDEX CONCURRENTLY ') : statement;
}

export interface CutOffIndexUpkeep {
  /** The file under sql/indexes/ that defines it. */
  file: string;
  /** The index that now serves. */
  current: string;
  /** Whether this call built it. */
  rebuilt: boolean;
}

export interface FeedIndexUpkeep {
  /** The feed index that now serves. */
  current: string;
  /** Whether this call built it. */
  rebuilt: boolean;
  /** Every cut-off index, the feed index first. */
  indexes: CutOffIndexUpkeep[];
}

export interface UpkeepOptions {
  /** Cancels a build under way (a server stopping need not wait minutes for it); the next run redoes it. */
  signal?: AbortSignal;
}

/** The version of a cut-off index that `now` asks for: the index, and its name with the cutoff. */
interface Wanted {
  index: CutOffIndex;
  name: string;
}

/**
 * Makes sure each cut-off index for `now`'s cutoff exists, as its file defines it, and drops older ones.
 * Cheap when nothing is due (a catalog query, and the definitions compared on an empty table). Returns
 * without waiting when another instance holds the upkeep lock.
 */
export async function keepFeedIndexCurrent(pool: pg.Pool, now: Date, { signal }: UpkeepOptions = {}): Promise<FeedIndexUpkeep> {
  const cutoff = feedIndexCutoff(now);
  const wanted: Wanted[] = CUT_OFF_INDEXES.map((index) => ({ index, name: cutOffIndexName(index, cutoff) }));
  const existing = await cutOffIndexes((text, values) => pool.query(text, values));
  const versionsOf = (indexes: IndexThere[], index: CutOffIndex) => indexes.filter((there) => cutOffIndexOf(there.name) === index);
  const upToDate = ({ index, name }: Wanted) => {
    const versions = versionsOf(existing, index);
    return versions.length === 1 && versions[0]!.name === name && versions[0]!.valid;
  };
  const upkeep = (rebuilt: Set<string>, current = (each: Wanted) => each.name): FeedIndexUpkeep => {
    const indexes = wanted.map((each) => ({ file: each.index.file, current: current(each), rebuilt: rebuilt.has(each.name) }));
    return { current: indexes[0]!.current, rebuilt: indexes[0]!.rebuilt, indexes };
  };
  if (wanted.every(upToDate) && (await onPooledSession(pool, (session) => madeAsDefined(session, wanted)))) return upkeep(new Set());
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
    if (!rows[0]?.locked) return upkeep(new Set(), (each) => versionsOf(existing, each.index).at(-1)?.name ?? each.name);
    try {
      // A concurrent build waits for every transaction that wrote to loads, and may take minutes: the
      // pool's statement and lock timeouts, meant for requests, do not apply to it.
      destroy = true;
      await run("SELECT set_config('statement_timeout', '0', false), set_config('lock_timeout', '0', false)");
      const rebuilt = new Set<string>();
      const there = await cutOffIndexes(run);
      for (const each of wanted) {
        if (await renew(each, versionsOf(there, each.index))) rebuilt.add(each.name);
      }
      return upkeep(rebuilt);
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

  /** Builds `wanted` where it is missing or not what its file makes, and drops the other versions: whether it built. */
  async function renew({ index, name }: Wanted, versions: IndexThere[]): Promise<boolean> {
    let rebuilt = false;
    const present = versions.find((version) => version.name === name);
    const replacement = `${name}_replacement`;
    // What an interrupted run left: an invalid build, or a replacement never put in place.
    for (const left of versions.filter((version) => (version.name === name && !version.valid) || version.name === replacement)) {
      await run(`DROP INDEX CONCURRENTLY IF EXISTS ${left.name}`, [], { ddl: true });
    }
    if (!present?.valid) {
      await run(cutOffIndexStatement(index, name, { concurrently: true }), [], { ddl: true });
      rebuilt = true;
    } else if (!(await madeAsDefined(client, [{ index, name }]))) {
      // A changed definition, same cutoff: the new index is built beside the old one, which the
      // queries use until it is dropped, and then takes its name.
      await run(cutOffIndexStatement(index, replacement, { concurrently: true }), [], { ddl: true });
      await run(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`, [], { ddl: true });
      await run(`ALTER INDEX ${replacement} RENAME TO ${name}`, [], { ddl: true });
      rebuilt = true;
    }
    for (const old of versions.filter((version) => version.name !== name && version.name !== replacement)) {
      await run(`DROP INDEX CONCURRENTLY IF EXISTS ${old.name}`, [], { ddl: true });
    }
    return rebuilt;
  }
}

interface IndexThere {
  name: string;
  /** False for an index left behind by an interrupted concurrent build; the next run replaces it. */
  valid: boolean;
}

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/** Every version of every cut-off index on loads, by name. */
async function cutOffIndexes(query: Query): Promise<IndexThere[]> {
  const { rows } = await query<IndexThere>(
    `SELECT c.relname AS name, i.indisvalid AS valid
       FROM pg_index AS i
       JOIN pg_class AS c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'loads'::regclass AND c.relname LIKE ANY ($1::text[])
      ORDER BY c.relname`,
    [CUT_OFF_INDEXES.map((index) => `${index.prefix.replaceAll('_', '\\_')}%`)],
  );
  return rows.filter((row) => cutOffIndexOf(row.name) !== undefined);
}

/**
 * Whether each index `name` is what its file makes: PostgreSQL's own rendering of both is compared, the
 * file's made on an empty copy of loads in a transaction rolled back.
 */
async function madeAsDefined(session: pg.ClientBase, wanted: Wanted[]): Promise<boolean> {
  await session.query('BEGIN');
  try {
    // `loads` in the definitions now names this session's empty copy (the temporary schema comes first).
    await session.query('CREATE TEMPORARY TABLE loads (LIKE loads) ON COMMIT DROP');
    for (const { index, name } of wanted) await session.query(cutOffIndexStatement(index, name));
    const { rows } = await session.query<{ wanted: string; present: string }>(
      `SELECT pg_get_indexdef(format('pg_temp.%I', n)::regclass) AS wanted,
              pg_get_indexdef(format('%I.%I', current_schema(), n)::regclass) AS present
         FROM unnest($1::text[]) AS n`,
      [wanted.map(({ name }) => name)],
    );
    const body = (definition: string) => definition.replace(/^CREATE INDEX \S+ ON \S+ /, '');
    return rows.every((row) => body(row.wanted) === body(row.present));
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
