// Where a page is read: on a streaming standby (DATABASE_REPLICA_URLS) when it is current enough, else on
// the primary. The primary keeps the small per-request work, one round trip (auth/admission.ts: the key,
// the rate limit, the horizon); the page and its count, the dear part, go to a standby.
//
// "Current enough" is decided in the page's own snapshot, not by a lag estimate: the admission also
// reads the customer's feed version after fixing the horizon (migrations/0007_request-admission.sql), and
// every statement of a page reads the feed version in its snapshot (loads/list.ts). A standby
// statement whose snapshot shows an older version has not replayed every change the horizon covers: it
// is refused and the page is read elsewhere. So a page from a standby is the page the primary would serve,
// its totalCount is exact, and the pages of a walk never go back in time. The test is per customer: other
// customers' writes, which keep a busy primary's WAL ahead of every standby, hold nothing back. (A check
// of pg_last_wal_replay_lsn() against the primary's WAL position would fail on every request a busy
// primary serves, and inside the page's statement it would be read after the snapshot was taken.)
//
// Faults: a standby that refuses a connection, fails a statement (stopped, cancelled by a recovery
// conflict, past its deadline) or stops being a standby (promoted) is passed over for a while and the page
// is read on the next one or on the primary; the client sees nothing. A statement past its deadline is
// cancelled by the standby itself (statement_timeout), so a slow or hostile page does not go on holding a
// backend there after the client has moved on. A check every second (`start()`) brings standbys
// back, measures their replay lag and tells /readyz which databases answer.
import type { Logger } from 'pino';
import pg from 'pg';
import type { Metrics } from '../metrics/metrics.js';
import { cancellable } from './cancellable.js';
import { createPool } from './pool.js';

/** What a page's statements need of a database. */
export type Queryable = Pick<pg.Pool, 'query'>;

/** How long a standby that failed is passed over before requests try it again (the check may clear it sooner). */
const STANDBY_RETRY_MS = 1_000;
/** How often the databases are checked. */
const CHECK_EVERY_MS = 1_000;
/** A standby that does not answer within this is taken for down; the primary then serves. */
const STANDBY_CONNECT_TIMEOUT_MS = 1_000;
/** The standby cancels a statement past this (or past the server's statement timeout, if shorter); the
 * client's deadline is a second more (db/pool.ts), so a standby that does not answer is left within 3 s. */
const STANDBY_STATEMENT_TIMEOUT_MS = 2_000;
const CHECK_TIMEOUT_MS = 2_000;

export type StandbyState = 'up' | 'down' | 'not_standby';

/** A standby statement whose snapshot is older than the page needs. */
class StandbyBehind extends Error {}

interface Standby {
  /** host:port/database: what metrics and the log call it (never the credentials), for the operator. */
  name: string;
  /** What the public /readyz calls it: its configured name, else `standby-<position>`; never its address. */
  publicName: string;
  pool: pg.Pool;
  state: StandbyState;
  /** While `state` is not `up`: when requests may try it again. */
  retryAt: number;
}

export interface DatabasesState {
  primary: 'up' | 'down';
  standbys: Record<string, StandbyState>;
}

export interface ReadRouterOptions {
  /** The primary's URL, for a check connection of its own (so that a busy pool never looks like a down
   * primary); absent: the check borrows from the primary's pool. */
  primaryUrl?: string | undefined;
  metrics?: Metrics | undefined;
  logger?: Logger | undefined;
  /** Connections per standby. */
  max?: number;
  /** The server's statement timeout (DB_STATEMENT_TIMEOUT_MS); a standby's is this or less. */
  statementTimeoutMs?: number;
  /** What /readyz calls each standby, in order (DATABASE_REPLICA_NAMES); absent: `standby-1`, `standby-2`, … */
  standbyNames?: string[] | undefined;
}

/** A database's name for metrics and the log: host:port/database, without credentials. */
export function databaseName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

export class ReadRouter {
  private readonly standbys: Standby[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  private primaryUp = true;
  private readonly primaryCheck: pg.Pool;

  constructor(
    private readonly primary: pg.Pool,
    standbyUrls: string[],
    private readonly options: ReadRouterOptions = {},
  ) {
    if (options.primaryUrl) {
      this.primaryCheck = new pg.Pool({ connectionString: options.primaryUrl, max: 1, connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS });
      // A failed check says so; its connection's later end (the primary restarting) needs no word.
      this.primaryCheck.on('error', () => {});
    } else {
      this.primaryCheck = primary;
    }
    this.standbys = standbyUrls.map((url, index) => {
      const name = databaseName(url);
      const publicName = options.standbyNames?.[index] ?? `standby-${index + 1}`;
      const pool = createPool(url, {
        max: options.max ?? 10,
        statementTimeoutMs: Math.min(options.statementTimeoutMs ?? STANDBY_STATEMENT_TIMEOUT_MS, STANDBY_STATEMENT_TIMEOUT_MS),
        connectTimeoutMs: STANDBY_CONNECT_TIMEOUT_MS,
        onIdleError: (error) => options.logger?.warn({ err: error, standby: name }, 'an idle standby connection failed; the pool replaces it'),
      });
      options.metrics?.watchPool(name, pool);
      return { name, publicName, pool, state: 'up' as StandbyState, retryAt: 0 };
    });
  }

  /**
   * Runs `read` on a standby whose snapshots show at least `feedVersion` of the customer's feed, trying
   * each standby in turn, else on the primary. `read` must be idempotent (it may run more than once) and
   * each of its statements must return the customer's `feed_version` in its first row. When `signal`
   * aborts (the client left), the statement running is cancelled and the read ends with its error.
   */
  async read<T>(feedVersion: bigint, read: (db: Queryable) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const on = (pool: pg.Pool): Queryable => (signal ? cancellable(pool, signal) : pool);
    const count = this.standbys.length;
    const first = count === 0 ? 0 : this.next++ % count;
    for (let offset = 0; offset < count; offset += 1) {
      const standby = this.standbys[(first + offset) % count]!;
      if (standby.state !== 'up' && Date.now() < standby.retryAt) {
        this.options.metrics?.standbySkips.inc({ standby: standby.name, reason: standby.state });
        continue;
      }
      try {
        const result = await read(currentEnough(on(standby.pool), feedVersion));
        if (standby.state === 'down') standby.state = 'up';
        this.options.metrics?.pageReads.inc({ database: standby.name });
        return result;
      } catch (error) {
        // A read cancelled for its client's sake says nothing about the standby.
        if (signal?.aborted) throw error;
        if (error instanceof StandbyBehind) {
          this.options.metrics?.standbySkips.inc({ standby: standby.name, reason: 'behind' });
          continue;
        }
        this.passOver(standby, 'down', error);
        this.options.metrics?.standbySkips.inc({ standby: standby.name, reason: 'down' });
      }
    }
    const result = await read(on(this.primary));
    this.options.metrics?.pageReads.inc({ database: 'primary' });
    return result;
  }

  /**
   * Whether the primary failed its last check (every second, while the server listens). Requests then
   * get SPEC's 500 at once instead of each waiting for a connection that cannot come (through PgBouncer,
   * up to its query_wait_timeout); the next check that gets an answer lets them through again.
   */
  primaryUnreachable(): boolean {
    return !this.primaryUp;
  }

  /** Begins checking the databases every second; `stop()` ends it and closes the pools it opened. */
  start(): void {
    if (this.timer) return;
    // One check at a time: against a slow database a check can outlast the second, and an older check
    // finishing after a newer one would overwrite its answer (a primary that answers, marked down).
    let underWay = false;
    const tick = () => {
      if (underWay) return;
      underWay = true;
      this.checking = this.check().finally(() => {
        underWay = false;
      });
    };
    tick();
    this.timer = setInterval(tick, CHECK_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
    await Promise.all(this.standbys.map((standby) => standby.pool.end().catch(() => {})));
    if (this.primaryCheck !== this.primary) await this.primaryCheck.end().catch(() => {});
  }

  /**
   * Which databases answer now (for /readyz, which anyone may ask: standbys by their public names, so that
   * no address of the network behind the server is shown), checked at once: the primary through the pool requests
   * use (so that an instance whose pool cannot serve leaves rotation), and each standby. The breaker is
   * left to the check every second, so that it always closes again by itself.
   */
  async databases(): Promise<DatabasesState> {
    const [primaryAnswers] = await Promise.all([
      withTimeout(this.primary.query('SELECT 1')).then(
        () => true,
        () => false,
      ),
      this.checkStandbys(null),
    ]);
    return {
      primary: primaryAnswers ? 'up' : 'down',
      standbys: Object.fromEntries(this.standbys.map((standby) => [standby.publicName, standby.state])),
    };
  }

  private passOver(standby: Standby, state: Exclude<StandbyState, 'up'>, error?: unknown): void {
    if (standby.state !== state) {
      this.options.logger?.warn({ err: error, standby: standby.name, state }, 'standby passed over; pages go to the next database');
    }
    standby.state = state;
    standby.retryAt = Date.now() + STANDBY_RETRY_MS;
  }

  /** The check every second: the primary (which moves the breaker, `primaryUnreachable()`), then the standbys. */
  private async check(): Promise<void> {
    await this.checkStandbys(await this.checkPrimary());
  }

  /** Asks the primary, on the check's own connection, for its WAL position; null when it does not answer. */
  private async checkPrimary(): Promise<string | null> {
    const metrics = this.options.metrics;
    let primaryLsn: string | null = null;
    const wasUp = this.primaryUp;
    try {
      primaryLsn = (await withTimeout(this.primaryCheck.query<{ lsn: string | null }>(PRIMARY_CHECK_SQL))).rows[0]!.lsn;
      this.primaryUp = true;
    } catch (error) {
      this.primaryUp = false;
      if (wasUp) this.options.logger?.error({ err: error }, 'the primary database does not answer; requests get a 500 until it does');
    }
    if (!wasUp && this.primaryUp) this.options.logger?.info('the primary database answers again');
    metrics?.databaseUp.set({ database: 'primary' }, this.primaryUp ? 1 : 0);
    return primaryLsn;
  }

  /** Asks each standby whether it still is one and what it has replayed (the lag against `primaryLsn`, when known). */
  private async checkStandbys(primaryLsn: string | null): Promise<void> {
    const metrics = this.options.metrics;
    await Promise.all(
      this.standbys.map(async (standby) => {
        try {
          const row = (await withTimeout(standby.pool.query<StandbyCheckRow>(STANDBY_CHECK_SQL, [primaryLsn]))).rows[0]!;
          if (!row.in_recovery) {
            this.passOver(standby, 'not_standby');
          } else {
            if (standby.state !== 'up') this.options.logger?.info({ standby: standby.name }, 'standby back in use');
            standby.state = 'up';
            if (primaryLsn !== null) {
              metrics?.replayLagBytes.set({ standby: standby.name }, Math.max(0, Number(row.lag_bytes ?? 0)));
              metrics?.replayLagSeconds.set({ standby: standby.name }, Math.max(0, row.lag_seconds ?? 0));
            }
          }
        } catch (error) {
          this.passOver(standby, 'down', error);
        }
        metrics?.databaseUp.set({ database: standby.name }, standby.state === 'up' ? 1 : 0);
      }),
    );
  }
}

/** On a standby this fails (no WAL is written there); that too says the primary is not the primary. */
const PRIMARY_CHECK_SQL = `SELECT pg_current_wal_lsn()::text AS lsn`;

interface StandbyCheckRow {
  in_recovery: boolean;
  lag_bytes: string | null;
  lag_seconds: number | null;
}

// The replay lag: the primary's WAL not yet replayed here, and how old the last replayed commit is
// while some is outstanding (an idle primary writes nothing, so the age alone would only grow).
const STANDBY_CHECK_SQL = `
SELECT pg_is_in_recovery() AS in_recovery,
       pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::text AS lag_bytes,
       CASE WHEN $1::pg_lsn IS NULL OR pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()) <= 0 THEN 0
            ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8 END AS lag_seconds`;

/** `db` with every statement's snapshot checked: one showing an older feed version than `feedVersion` is refused. */
function currentEnough(db: Queryable, feedVersion: bigint): Queryable {
  const query = async (sql: string, values?: unknown[]) => {
    const result = await db.query<{ feed_version?: string }>(sql, values);
    const version = result.rows[0]?.feed_version;
    if (version === undefined || BigInt(version) < feedVersion) throw new StandbyBehind();
    return result;
  };
  return { query } as unknown as Queryable;
}

async function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
