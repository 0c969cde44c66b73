// The sync's 'pages' strategy: SPEC §4's loop as written, kept for anyone who needs that loop; the key
// walk (walk-by-key.ts) is the default because an update during a sweep by page number can skip a row.
import { NoProgressError } from './errors.js';
import type { Run } from './sync-run.js';
import { MAX_PAGE_NUMBER, repeatGuard } from './walk-guard.js';

/** SPEC §4's loop as written: page numbers from one updatedSince, following hasMore. */
export async function walkByPage(run: Run, from: string | undefined): Promise<void> {
  const guard = repeatGuard();
  let largest: string | undefined;
  for (let number = 1; ; number += 1) {
    const page = await run.fetch(from, number);
    guard(page, `page ${number}`);
    if (page.hasMore && (number * page.pageSize >= page.totalCount || number >= MAX_PAGE_NUMBER)) {
      throw new NoProgressError(
        `the sync makes no progress: page ${number} (${page.pageSize} a page) says more follow, but the server counts only ${page.totalCount} rows`,
      );
    }
    for (const row of page.data) if (largest === undefined || row.updatedAt > largest) largest = row.updatedAt;
    run.setAhead(page.totalCount - (number - 1) * page.pageSize - page.data.length);
    await run.deliver(page.data, largest);
    if (!page.hasMore) return;
  }
}
