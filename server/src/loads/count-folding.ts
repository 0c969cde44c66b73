// The loads' counters are appended to by every writer (sql/functions/count_feed_loads.sql) and folded
// into one row a bucket by the server (sql/functions/fold_feed_counts.sql), so that a count reads about
// a row a bucket. Folding is never needed for a count to be exact, only for it to stay cheap: the changes
// not folded yet are read with the counters. A fold runs every second while the server listens, one at a
// time across every instance (the function's advisory lock), on the primary.
import type Hapi from '@hapi/hapi';
import type pg from 'pg';
import type { Logger } from 'pino';

/** How often the changes are folded: at 10 writes a second, a count reads some twenty changes besides its buckets. */
export const FOLD_EVERY_MS = 1_000;

const FOLD_SQL = 'SELECT fold_feed_counts() AS folded';

/** Folds the counters' changes once; resolves to how many it folded. */
export async function foldFeedCounts(pool: Pick<pg.Pool, 'query'>): Promise<number> {
  return Number((await pool.query<{ folded: string }>(FOLD_SQL)).rows[0]!.folded);
}

/** While the server listens, folds the counters' changes every FOLD_EVERY_MS; a failed fold is retried by the next. */
export function keepFeedCountsFolded(server: Hapi.Server, pool: pg.Pool, logger: Logger): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const fold = () => {
    if (running) return;
    running = foldFeedCounts(pool)
      .catch((error: unknown) => logger.debug({ err: error }, 'folding the feed counts failed; the next fold retries'))
      .finally(() => (running = undefined));
  };
  server.ext('onPostStart', () => {
    timer = setInterval(fold, FOLD_EVERY_MS);
    timer.unref();
  });
  server.ext('onPreStop', async () => {
    clearInterval(timer);
    await running;
  });
}
