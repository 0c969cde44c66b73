// Page-number stretches of the key walk, on a deployment whose feed is settled (README "Ties").
//
// From one anchor A, pages 1, 2, 3… by number re-read nothing, so ties cost nothing; but a row that
// LEAVES a position already read (an update moves it to a later updatedAt; a delete, an age-out or an
// update out of the filters removes it) shifts every row behind it one place down, and one is skipped.
// A settled feed bounds what can happen: a response settled through H shows every change stamped at or
// before H, so every row that appears later (inserted, moved, or come into the filters) is stamped after
// H, and sorts after every row of that response. So take a response as the reference: its count C from A
// and its last row Z. Later, let the count still be C and the last row still be Z: then no row of the
// reference changed at all (one that moved would now be last, and one that left would have to be replaced
// by a row that sorts after Z to keep the count). Every row kept its position, and the pages read since
// the reference are exact. One request shows both: page C at one row a page from A, which is the last row
// while the count is C (the server reads it from the end). A stretch that reaches the feed's end shows
// them on its own last page. The reference is such a request made before the stretch's first page, so a
// row moved in the past by a deployment whose header is wrong still shows, as long as it sorts after Z.
// A check that fails, or a page whose count moved, sends the walk back, by key, to the last page that
// passed; nothing after that page moves the cursor until a check passes, so a crash resumes from a page
// known to be complete.
import type { LoadRow, Page } from './client.js';
import { NoProgressError } from './errors.js';
import { settledThroughOf } from './settled-through.js';
import { STRETCH_POLICY, stretchPays, type StretchPlan } from './stretch-plan.js';

/** What a stretch needs of the sync's run. */
export interface StretchRun {
  fetch(updatedSince: string | undefined, page: number, size: number): Promise<Page>;
  /** A request of its own size that does not change the page size the run asks for. */
  probe(updatedSince: string | undefined, page: number, size: number): Promise<Page>;
  setAhead(count: number): void;
  deliver(batch: LoadRow[], nextCursor: string | undefined): Promise<void>;
}

/** Where the key walk goes on: from `since`, dropping the rows at that instant in `seen`. */
export interface KeyState {
  since: string;
  seen: Set<string>;
}

export type StretchEnd = { done: true } | ({ done: false } & KeyState);

/** The key walk's state after a page: its last instant and the rows of the page at it. */
export function stateAfter(rows: readonly LoadRow[]): KeyState {
  const since = rows[rows.length - 1]!.updatedAt;
  const seen = new Set<string>();
  for (let index = rows.length - 1; index >= 0 && rows[index]!.updatedAt === since; index -= 1) seen.add(rows[index]!.loadNumber);
  return { since, seen };
}

/**
 * Whether to go on from `page` (a key walk's page, handed over) by page number: the deployment says how
 * far its feed is settled, the plan allows it, and it takes fewer requests than the key walk would.
 */
export function mayStretchAfter(page: Page, plan: StretchPlan, maxPageNumber: number): boolean {
  if (!page.hasMore || page.data.length === 0 || !plan.mayStretch() || settledThroughOf(page) === undefined) return false;
  const tie = stateAfter(page.data).seen.size;
  const rest = page.totalCount - page.data.length;
  // Priced at the longest stretch: a shorter one after a failed check is a trial that grows while checks pass.
  return rest + tie <= maxPageNumber && stretchPays(rest, tie, page.pageSize, STRETCH_POLICY.longestStretch(page.pageSize));
}

type Verdict = 'passed' | 'moved' | 'contradicted';

/** The same row, as served: no change since (every change gets a new updatedAt). */
const sameRow = (a: LoadRow | undefined, b: LoadRow) => a !== undefined && a.loadNumber === b.loadNumber && a.updatedAt === b.updatedAt;

/**
 * Whether the feed still holds exactly the reference's rows, from a response that shows the feed's last
 * row: the same count and the same last row.
 */
function verdictOf(shown: Page, lastRow: LoadRow | undefined, reference: { count: number; last: LoadRow }): Verdict {
  if (settledThroughOf(shown) === undefined) return 'contradicted';
  if (shown.totalCount === reference.count && sameRow(lastRow, reference.last)) return 'passed';
  // More rows, the last one unchanged: a row appeared before it, where a settled feed puts no new row.
  if (shown.totalCount > reference.count && sameRow(lastRow, reference.last)) return 'contradicted';
  return 'moved';
}

/**
 * Reads pages 1, 2… of `size` rows from `start.since` by number, `count` rows from there, checking every
 * `plan.stretchPages` pages, until the feed's end (done) or a check fails (the key walk's state at the last
 * page that passed). The rows at `start.since` in `start.seen` are handed over already.
 */
export async function readStretch(
  run: StretchRun,
  plan: StretchPlan,
  guard: (page: Page, request: string) => void,
  start: KeyState,
  count: number,
  size: number,
): Promise<StretchEnd> {
  const { since, seen } = start;
  let checkpoint: KeyState = start;
  const stopAt = (verdict: Exclude<Verdict, 'passed'>): StretchEnd => {
    if (verdict === 'contradicted') plan.distrust();
    else plan.checkFailed();
    return { done: false, ...checkpoint };
  };
  const showsLast = (probe: Page) => (probe.hasMore || probe.data.length !== 1 ? undefined : probe.data[0]);

  const first = await run.probe(since, count, 1);
  const last = showsLast(first);
  if (settledThroughOf(first) === undefined) return stopAt('contradicted');
  if (first.totalCount !== count || last === undefined) return stopAt('moved');
  const reference = { count, last };
  let checkedPage = 0;
  for (let number = 1; ; number += 1) {
    const page = await run.fetch(since, number, size);
    guard(page, `page ${number} from updatedSince=${since}`);
    if (settledThroughOf(page) === undefined) return stopAt('contradicted');
    if (page.hasMore && number * page.pageSize >= page.totalCount) {
      throw new NoProgressError(
        `the sync makes no progress: page ${number} (${page.pageSize} a page) from updatedSince=${since} says more follow, but the server counts only ${page.totalCount} rows`,
      );
    }
    // A row gone or come since the reference, or another page size: positions are no longer the reference's.
    if (page.pageSize !== size || (page.totalCount !== reference.count && page.hasMore)) return stopAt('moved');
    const rows = page.data;
    const fresh = rows.filter((row) => !(row.updatedAt === since && seen.has(row.loadNumber)));
    run.setAhead(page.totalCount - (number - 1) * size - rows.length);
    if (!page.hasMore) {
      // The stretch's last page shows the feed's last row: it is its own check. A page that fails it is
      // not handed over: the walk by key reads its rows again.
      const verdict = verdictOf(page, rows[rows.length - 1], reference);
      if (verdict !== 'passed') return stopAt(verdict);
      plan.checkPassed();
      await run.deliver(fresh, rows[rows.length - 1]!.updatedAt);
      return { done: true };
    }
    if (number - checkedPage < plan.stretchPages(size)) {
      await run.deliver(fresh, undefined);
      continue;
    }
    const probe = await run.probe(since, reference.count, 1);
    const verdict = verdictOf(probe, showsLast(probe), reference);
    if (verdict !== 'passed') return stopAt(verdict);
    plan.checkPassed();
    checkpoint = stateAfter(rows);
    checkedPage = number;
    await run.deliver(fresh, checkpoint.since);
  }
}
