// Where a page is read: on a streaming standby (DATABASE_REPLICA_URLS) whose snapshot is current enough
// (db/current-enough.ts), else on the primary. The primary keeps the small per-request work, one round
// trip (admission/admit-request.ts: the key, the rate limit, the horizon); the page and its count, the
// dear part, go to a standby.
//
// Faults: a standby that refuses a connection, fails a statement (stopped, cancelled by a recovery
// conflict, past its deadline) or stops being a standby (promoted) is passed over for a while
// (db/standbys.ts) and the page is read on the next one or on the primary; the client sees nothing. A
// statement past its deadline is cancelled by the standby itself (statement_timeout), so a slow or hostile
// page does not go on holding a backend there after the client has moved on.
import type pg from 'pg';
import type { Metrics } from '../metrics.js';
import { cancellable, type CancelSignal } from './cancellable.js';
import { currentEnough, StandbyBehind } from './current-enough.js';
import type { Queryable } from './pool.js';
import type { Standbys } from './standbys.js';

export class ReadRouter {
  private next = 0;

  constructor(
    private readonly primary: pg.Pool,
    private readonly standbys: Standbys,
    private readonly options: { metrics?: Metrics | undefined } = {},
  ) {}

  /**
   * Runs `read` on a standby whose snapshots show at least `feedVersion` of the customer's feed, trying
   * each standby in turn, else on the primary. `read` must be idempotent (it may run more than once) and
   * each of its statements must return the customer's `feed_version` in its first row. When `signal`
   * aborts (the client left), the statement running is cancelled and the read ends with its error.
   */
  async read<T>(feedVersion: bigint, read: (db: Queryable) => Promise<T>, signal?: CancelSignal): Promise<T> {
    const on = (pool: pg.Pool): Queryable => (signal ? cancellable(pool, signal) : pool);
    const standbys = this.standbys.all;
    const count = standbys.length;
    const first = count === 0 ? 0 : this.next++ % count;
    for (let offset = 0; offset < count; offset += 1) {
      const standby = standbys[(first + offset) % count]!;
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
        this.standbys.passOver(standby, 'down', error);
        this.options.metrics?.standbySkips.inc({ standby: standby.name, reason: 'down' });
      }
    }
    const result = await read(on(this.primary));
    this.options.metrics?.pageReads.inc({ database: 'primary' });
    return result;
  }
}
