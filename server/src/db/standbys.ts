// The standbys of DATABASE_REPLICA_URLS: a pool for each, opened with the standbys' own bounds, and each
// one's state as the page reads (db/read-router.ts) and the check every second (db/database-check.ts)
// find it. A standby that failed is passed over for a while; either of them brings it back.
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Metrics } from '../metrics.js';
import { createPool } from './pool.js';

export type StandbyState = 'up' | 'down' | 'not_standby';

export interface StandbyOptions {
  /** Connections per standby (DB_REPLICA_POOL_SIZE). */
  max: number;
  /** The standby cancels a statement past this; the client's deadline is a second more (db/pool.ts). */
  statementTimeoutMs: number;
  /** A standby that gives no connection within this is taken for down; the page goes to the next database. */
  connectTimeoutMs: number;
  /** How long a standby that failed is passed over before page reads try it again. */
  retryMs: number;
  /** What /readyz calls each standby, in order (DATABASE_REPLICA_NAMES); absent: `standby-1`, `standby-2`, … */
  names?: string[] | undefined;
}

export interface Standby {
  /** host:port/database: what metrics and the log call it (never the credentials), for the operator. */
  name: string;
  /** What the public /readyz calls it: its configured name, else `standby-<position>`; never its address. */
  publicName: string;
  pool: pg.Pool;
  state: StandbyState;
  /** While `state` is not `up`: when page reads may try it again. */
  retryAt: number;
}

/** A database's name for metrics and the log: host:port/database, without credentials. */
export function databaseName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

export class Standbys {
  readonly all: Standby[];

  constructor(
    urls: string[],
    private readonly options: StandbyOptions,
    private readonly watch: { metrics?: Metrics | undefined; logger?: Logger | undefined } = {},
  ) {
    this.all = urls.map((url, index) => {
      const name = databaseName(url);
      const pool = createPool(url, {
        max: options.max,
        statementTimeoutMs: options.statementTimeoutMs,
        connectTimeoutMs: options.connectTimeoutMs,
        onIdleError: (error) => watch.logger?.warn({ err: error, standby: name }, 'an idle standby connection failed; the pool replaces it'),
      });
      watch.metrics?.watchPool(name, pool);
      return { name, publicName: options.names?.[index] ?? `standby-${index + 1}`, pool, state: 'up' as StandbyState, retryAt: 0 };
    });
  }

  /** Marks `standby` as `state` and not to be read from for a while; the log hears of each change. */
  passOver(standby: Standby, state: Exclude<StandbyState, 'up'>, error?: unknown): void {
    if (standby.state !== state) {
      this.watch.logger?.warn({ err: error, standby: standby.name, state }, 'standby passed over; pages go to the next database');
    }
    standby.state = state;
    standby.retryAt = Date.now() + this.options.retryMs;
  }

  /** Closes every standby's pool. */
  async close(): Promise<void> {
    await Promise.all(this.all.map((standby) => standby.pool.end().catch(() => {})));
  }
}
