// The sync's default walk: by key, page 1 from the last row's updatedAt, so an update during the sweep
// cannot make it skip a row (README "Why no row is lost"); a whole page at one instant is read by page
// number from its last page down; where the feed says it is settled it reads on by page number between
// checks that nothing moved (stretch.ts).
import type { LoadRow, Page } from './client.js';
import { NoProgressError } from './errors.js';
import { mayStretchAfter, readStretch, stateAfter } from './stretch.js';
import { stretchPlan } from './stretch-plan.js';
import { toDateTime, toMs, type Run } from './sync-run.js';
import { MAX_PAGE_NUMBER, repeatGuard } from './walk-guard.js';

/**
 * The key walk. Each request is page 1 from the last row's updatedAt, so an earlier row that moves away
 * shifts nothing this walk still has to read. Rows at that boundary already handed over are dropped;
 * that set holds at most one page, so memory stays flat. Where the deployment says how far its feed is
 * settled, the walk goes on from page 1 by page number instead, checked (stretch.ts), and comes back to
 * keys where a check fails: so the rows of one instant are not read again at every page.
 */
export async function walkByKey(run: Run, from: string | undefined): Promise<void> {
  let guard = repeatGuard();
  const plan = stretchPlan();
  let since = from;
  let seenAtSince = new Set<string>();
  // The page after a tied group, read before the group was walked (see walkTiedGroup).
  let readAhead: Page | undefined;
  for (;;) {
    const page = readAhead ?? (await run.fetch(since, 1));
    readAhead = undefined;
    guard(page, `page 1 from updatedSince=${since ?? '(none)'}`);
    const rows = page.data;
    if (rows.length === 0) {
      run.setAhead(0);
      await run.deliver([], undefined);
      return;
    }
    const fresh = seenAtSince.size === 0 ? rows : rows.filter((row) => !(row.updatedAt === since && seenAtSince.has(row.loadNumber)));
    const last = rows[rows.length - 1]!.updatedAt;
    run.setAhead(page.totalCount - rows.length);
    await run.deliver(fresh, last);
    if (!page.hasMore) return;
    if (mayStretchAfter(page, plan, MAX_PAGE_NUMBER)) {
      const start = stateAfter(rows);
      // Its own guard: where the whole page is one instant, the stretch's page 1 is this page again.
      const end = await readStretch(run, plan, repeatGuard(), start, page.totalCount - rows.length + start.seen.size, page.pageSize);
      if (end.done) return;
      // The walk goes back to the last page that passed, so its next page may well bring rows it just had.
      ({ since, seen: seenAtSince } = end);
      guard = repeatGuard();
      continue;
    }
    plan.keyPageWalked();
    if (rows[0]!.updatedAt === last) {
      // A whole page at one updatedAt and more behind it: one write stamped more rows than a page holds.
      const after = await walkTiedGroup(run, last, page, new Set(rows.map((row) => row.loadNumber)));
      since = toDateTime(toMs(last) + 1);
      seenAtSince = new Set();
      // That page is still a true start from `since`: rows that changed since it was read (those that
      // left the group included) now sit after its last row, where the walk reads them fresh. Only a
      // page that says nothing follows is not trusted, because rows may have moved behind it.
      if (after.hasMore) readAhead = after;
    } else {
      ({ since, seen: seenAtSince } = stateAfter(rows));
    }
  }
}

/**
 * Reads every row that stays at updatedAt = `at` while the walk reads the group, without remembering
 * the group. Inside a group only page numbers reach further, and rows only ever LEAVE a past group (an
 * update moves a row to a later updatedAt; nothing is stamped in the past), which shifts the rows behind
 * it to lower positions. So the group is read from its last page DOWN to page 1: a row that shifts moves
 * into a page still to be read, never into one already read. Rows that leave are read later by the walk,
 * at their new updatedAt. The last page is found from the counts (rows at >= `at` minus rows at > `at`)
 * and confirmed by reading it: it must show the group's end, else the walk climbs until one does.
 * The count of rows after the group comes with the first page of them, which the key walk goes on from.
 */
async function walkTiedGroup(run: Run, at: string, firstPage: Page, handedOver: Set<string>): Promise<Page> {
  const size = firstPage.pageSize;
  const after = await run.fetch(toDateTime(toMs(at) + 1), 1);
  const groupEstimate = firstPage.totalCount - after.totalCount;
  // The page holding the first row AFTER the group shows where the group ends, so that page is the top.
  let top = Math.max(2, Math.floor(groupEstimate / size) + 1);
  const inGroup = (rows: LoadRow[]) => rows.filter((row) => row.updatedAt === at);
  // For the progress report: the group's rows not yet handed over, then every row after the group.
  let groupLeft = groupEstimate - handedOver.size;
  const showsEnd = (page: Page) => !page.hasMore || page.data.length < size || page.data[page.data.length - 1]!.updatedAt !== at;

  if (top > MAX_PAGE_NUMBER) {
    throw new NoProgressError(
      `the sync makes no progress: the server counts ${groupEstimate} rows at updatedAt ${at}, more than page numbers up to 2^31 reach at ${size} a page`,
    );
  }
  let page = await run.fetch(at, top, size);
  while (!showsEnd(page)) {
    // The group cannot grow (rows only leave it), so a full page of it past the rows first counted at or
    // after `at` is a server whose pages never end: the walk would climb for ever.
    const next = top + Math.max(1, Math.floor(top / 2));
    if (top * size > firstPage.totalCount || next > MAX_PAGE_NUMBER) {
      throw new NoProgressError(
        `the sync makes no progress: the rows at updatedAt ${at} never end: page ${top} (${size} a page) is still full of them and says more follow, past the ${firstPage.totalCount} rows the server counted from that instant`,
      );
    }
    top = next;
    page = await run.fetch(at, top, size);
  }
  let previous = handedOver;
  for (let number = top; ; number -= 1) {
    if (number < top) page = await run.fetch(at, number, size);
    const rows = inGroup(page.data);
    // A row read on the page above (or on the first page) is unchanged while it is still at `at`.
    const fresh = rows.filter((row) => !previous.has(row.loadNumber) && !handedOver.has(row.loadNumber));
    groupLeft -= fresh.length;
    run.setAhead(groupLeft + after.totalCount);
    await run.deliver(fresh, undefined);
    if (number === 1) return after;
    previous = new Set(rows.map((row) => row.loadNumber));
  }
}
