// A request's PostgreSQL statements, timed and named for its trace spans and its Server-Timing header
// (./observe.ts): the admission, and the page's statements (count, page). The database handle a statement
// runs on is wrapped only while a request is observed (tracing or SERVER_TIMING on); otherwise it is the
// handle itself, untouched.
import type { Request } from '@hapi/hapi';
import { performance } from 'node:perf_hooks';
import type { Queryable } from '../db/pool.js';
import { COUNTERS_COUNT_SQL } from '../loads/count-statements.js';
import { COUNT_SQL } from '../loads/list-statements.js';

/** What a request's statements are called: Server-Timing's metric names and the spans' names. */
export type StatementName = 'admission' | 'page' | 'count';

/** Told of each statement a request runs when it starts; returns what is told when it ends. */
export interface StatementObserver {
  started(name: StatementName): (durationMs: number, error: Error | undefined) => void;
}

function observed<Q extends Queryable>(observer: StatementObserver, db: Q, nameOf: (sql: string) => StatementName): Q {
  const query = async (sql: string, values?: unknown[]) => {
    const ended = observer.started(nameOf(sql));
    const began = performance.now();
    try {
      const result = await db.query(sql, values);
      ended(performance.now() - began, undefined);
      return result;
    } catch (error) {
      ended(performance.now() - began, error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  };
  return { query } as unknown as Q;
}

/** `pool` for the request's admission: itself unless the request is observed. */
export function admissionStatements<Q extends Queryable>(request: Request, pool: Q): Q {
  const observer = request.app.statements;
  return observer === undefined ? pool : observed(observer, pool, () => 'admission');
}

/** `db` for the request's page and count statements (loads/list.ts): itself unless the request is observed. */
export function pageStatements<Q extends Queryable>(request: Request, db: Q): Q {
  const observer = request.app.statements;
  // A page read together with its count is timed as the page.
  return observer === undefined ? db : observed(observer, db, (sql) => (sql === COUNT_SQL || sql === COUNTERS_COUNT_SQL ? 'count' : 'page'));
}
