// Stops a walk that would never end: a server whose answers keep it going (the same rows again while
// `hasMore` says more follow), or a page number past what a server can count to.
import type { Page } from './client.js';
import { NoProgressError } from './errors.js';

/** The largest page number a walk asks for: past it a server's int32 wraps, and `>> 1` turns negative. */
export const MAX_PAGE_NUMBER = 2 ** 31 - 1;

/**
 * Stops a walk that the server's answers would keep going forever: the same rows again while `hasMore`
 * says more follow. An honest server cannot do that in the walks that use it (each request starts past the
 * last one's rows), so it is an error, not a reason to loop.
 */
export function repeatGuard() {
  let previous: string | undefined;
  return (page: Page, request: string): void => {
    const rows = page.data;
    const first = rows[0];
    const last = rows[rows.length - 1];
    const signature = first && last ? `${rows.length} ${first.loadNumber}@${first.updatedAt} ${last.loadNumber}@${last.updatedAt}` : undefined;
    if (page.hasMore && signature !== undefined && signature === previous) {
      throw new NoProgressError(
        `the sync makes no progress: ${request} brought the same ${rows.length} rows as the request before it (${first!.loadNumber} to ${last!.loadNumber}) and says more follow`,
      );
    }
    previous = signature;
  };
}
