// The check of the databases, every DB_CHECK_INTERVAL_MS while the server listens: the primary, on a
// connection of its own (so that a busy pool never looks like a down primary), moves its breaker
// (db/primary-breaker.ts); each standby is asked whether it still is one and what it has replayed, which
// brings a standby that was passed over back into use and measures its replay lag. /readyz asks it which
// databases answer now.
import type { Logger } from 'pino';
import pg from 'pg';
import type { Metrics } from '../metrics.js';
import type { PrimaryBreaker } from './primary-breaker.js';
import type { StandbyState, Standbys } from './standbys.js';

export interface DatabasesState {
  primary: 'up' | 'down';
  standbys: Record<string, StandbyState>;
}

export interface DatabaseCheckOptions {
  /** How often the databases are checked (DB_CHECK_INTERVAL_MS). */
  everyMs: number;
  /** A database that does not answer a check within this is taken for down (DB_CHECK_TIMEOUT_MS). */
  timeoutMs: number;
  /** The primary's URL, for the check's connection of its own; absent: the check borrows from the primary's pool. */
  primaryUrl?: string | undefined;
  metrics?: Metrics | undefined;
  logger?: Logger | undefined;
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

export class DatabaseCheck {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  private readonly primaryCheck: pg.Pool;

  constructor(
    private readonly primary: pg.Pool,
    private readonly standbys: Standbys,
    private readonly breaker: PrimaryBreaker,
    private readonly options: DatabaseCheckOptions,
  ) {
    if (options.primaryUrl) {
      this.primaryCheck = new pg.Pool({ connectionString: options.primaryUrl, max: 1, connectionTimeoutMillis: options.timeoutMs, query_timeout: options.timeoutMs });
      // A failed check says so; its connection's later end (the primary restarting) needs no word.
      this.primaryCheck.on('error', () => {});
    } else {
      this.primaryCheck = primary;
    }
  }

  /** Begins checking the databases every `everyMs`; `stop()` ends it and closes the connection it opened. */
  start(): void {
    if (this.timer) return;
    // One check at a time: against a slow database a check can outlast the interval, and an older check
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
    this.timer = setInterval(tick, this.options.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
    if (this.primaryCheck !== this.primary) await this.primaryCheck.end().catch(() => {});
  }

  /**
   * Which databases answer now (for /readyz, which anyone may ask: standbys by their public names, so that
   * no address of the network behind the server is shown), checked at once: the primary through the pool requests
   * use (so that an instance whose pool cannot serve leaves rotation), and each standby. The breaker is
   * left to the check every interval, so that it always closes again by itself.
   */
  async databases(): Promise<DatabasesState> {
    const [primaryAnswers] = await Promise.all([
      this.withTimeout(this.primary.query('SELECT 1')).then(
        () => true,
        () => false,
      ),
      this.checkStandbys(null),
    ]);
    return {
      primary: primaryAnswers ? 'up' : 'down',
      standbys: Object.fromEntries(this.standbys.all.map((standby) => [standby.publicName, standby.state])),
    };
  }

  /** One check: the primary (which moves the breaker), then the standbys. */
  private async check(): Promise<void> {
    await this.checkStandbys(await this.checkPrimary());
  }

  /** Asks the primary, on the check's own connection, for its WAL position; null when it does not answer. */
  private async checkPrimary(): Promise<string | null> {
    let primaryLsn: string | null = null;
    try {
      primaryLsn = (await this.withTimeout(this.primaryCheck.query<{ lsn: string | null }>(PRIMARY_CHECK_SQL))).rows[0]!.lsn;
      this.breaker.record(true);
    } catch (error) {
      this.breaker.record(false, error);
    }
    this.options.metrics?.databaseUp.set({ database: 'primary' }, this.breaker.isOpen() ? 0 : 1);
    return primaryLsn;
  }

  /** Asks each standby whether it still is one and what it has replayed (the lag against `primaryLsn`, when known). */
  private async checkStandbys(primaryLsn: string | null): Promise<void> {
    const { metrics, logger } = this.options;
    await Promise.all(
      this.standbys.all.map(async (standby) => {
        try {
          const row = (await this.withTimeout(standby.pool.query<StandbyCheckRow>(STANDBY_CHECK_SQL, [primaryLsn]))).rows[0]!;
          if (!row.in_recovery) {
            this.standbys.passOver(standby, 'not_standby');
          } else {
            if (standby.state !== 'up') logger?.info({ standby: standby.name }, 'standby back in use');
            standby.state = 'up';
            if (primaryLsn !== null) {
              metrics?.replayLagBytes.set({ standby: standby.name }, Math.max(0, Number(row.lag_bytes ?? 0)));
              metrics?.replayLagSeconds.set({ standby: standby.name }, Math.max(0, row.lag_seconds ?? 0));
            }
          }
        } catch (error) {
          this.standbys.passOver(standby, 'down', error);
        }
        metrics?.databaseUp.set({ database: standby.name }, standby.state === 'up' ? 1 : 0);
      }),
    );
  }

  private async withTimeout<T>(promise: Promise<T>): Promise<T> {
    const { timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
