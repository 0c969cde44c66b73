// Page-number stretches of the key walk, on a deployment whose feed is settled (README "Ties").
//
// From one anchor A, pages 1, 2, 3… by number re-read nothing, so ties cost nothing; but a row that
// LEAVES a position already read (an update moves it to a later updatedAt; a delete, an age-out or an
// update out of the filters removes it) shifts every row behind it one place down, and one is skipped.
// A settled feed bounds what can happen: a response settled through H shows every change stamped at or
// before H, so every row that appears later (inserted, moved, or come into the filters) is stamped after
// H and sorts after every row of that response. Take a response R of the stretch as the reference, with
// its count C from A and its H. Later, let the count still be C and the feed's last row be stamped at or
// before H: then no row of R changed at all (each one that moved would sit at the end, stamped after H,
// and each one that left would have to be replaced by a row stamped after H to keep the count). So every
// row of R kept its position, and the pages read since R are exact. One request shows both: page C at one
// row a page from A, i.e. the feed's last row if the count is still C (the server reads it from the end).
// A stretch that reaches the feed's end shows them on its own last page. A check that fails, or a page
// whose count moved, sends the walk back, by key, to the last page that passed; nothing after that page
// moves the cursor until a check passes, so a crash resumes from a page that is known to be complete.
import type { LoadRow, Page } from './client.js';
import { NoProgressError } from './errors.js';
import { settledThroughOf } from './settled-through.js';
import type { StretchPlan } from './stretch-plan.js';

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

/** The key walk's state after a page that starts at or after `since`: its last instant and the rows at it. */
export function stateAfter(rows: readonly LoadRow[]): KeyState {
  const since = rows[rows.length - 1]!.updatedAt;
  const seen = new Set<string>();
  for (let index = rows.length - 1; index >= 0 && rows[index]!.updatedAt === since; index -= 1) seen.add(rows[index]!.loadNumber);
  return { since, seen };
}

// updatedAt has SPEC's one shape (the client checks it), so it parses to the instant it names.
const toMs = (dateTime: string) => Date.parse(dateTime);

/** Whether a stretch can start from `first` (page 1 from the anchor, already handed over by the key walk). */
export function mayStretchFrom(first: Page, plan: StretchPlan, maxPageNumber: number): boolean {
  return first.hasMore && first.data.length > 0 && plan.mayStretch() && settledThroughOf(first) !== undefined && first.totalCount <= maxPageNumber;
}

type Verdict = 'passed' | 'moved' | 'contradicted';

/**
 * Whether the feed still holds exactly the reference's rows, from a page that shows the feed's last row
 * (the probe, or a stretch's last page): the same count, and that row stamped no later than the reference's H.
 */
function verdictOf(shown: Page, lastRow: LoadRow | undefined, reference: { count: number; through: number }): Verdict {
  if (settledThroughOf(shown) === undefined) return 'contradicted';
  const settledRowLast = lastRow !== undefined && toMs(lastRow.updatedAt) <= reference.through;
  if (shown.totalCount === reference.count && settledRowLast) return 'passed';
  // More rows, none of them after H: a row appeared stamped at or before a horizon that said none would.
  if (shown.totalCount > reference.count && settledRowLast) return 'contradicted';
  return 'moved';
}

/**
 * Reads pages 2, 3… from `since` after `first`, checking every `plan.stretchPages` pages, until the
 * feed's end (done) or a check fails (the key walk's state at the last page that passed).
 */
export async function readStretch(
  run: StretchRun,
  plan: StretchPlan,
  guard: (page: Page, request: string) => void,
  since: string | undefined,
  seenAtSince: ReadonlySet<string>,
  first: Page,
): Promise<StretchEnd> {
  const size = first.pageSize;
  let reference = { count: first.totalCount, through: settledThroughOf(first)! };
  let checkpoint = stateAfter(first.data);
  let checkedPage = 1;
  const stopAt = (verdict: Exclude<Verdict, 'passed'>): StretchEnd => {
    if (verdict === 'contradicted') plan.distrust();
    else plan.checkFailed();
    return { done: false, ...checkpoint };
  };
  for (let number = 2; ; number += 1) {
    const page = await run.fetch(since, number, size);
    guard(page, `page ${number} from updatedSince=${since ?? '(none)'}`);
    if (settledThroughOf(page) === undefined) return stopAt('contradicted');
    if (page.hasMore && number * page.pageSize >= page.totalCount) {
      throw new NoProgressError(
        `the sync makes no progress: page ${number} (${page.pageSize} a page) from updatedSince=${since ?? '(none)'} says more follow, but the server counts only ${page.totalCount} rows`,
      );
    }
    // A row gone or come since the reference, or another page size: positions are no longer the reference's.
    if (page.pageSize !== size || (page.totalCount !== reference.count && page.hasMore)) return stopAt('moved');
    const rows = page.data;
    const fresh = seenAtSince.size === 0 ? rows : rows.filter((row) => !(row.updatedAt === since && seenAtSince.has(row.loadNumber)));
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
    const verdict = verdictOf(probe, probe.hasMore ? undefined : probe.data[0], reference);
    if (verdict !== 'passed') return stopAt(verdict);
    plan.checkPassed();
    checkpoint = stateAfter(rows);
    checkedPage = number;
    // The probe's response holds the reference's rows exactly, so it is the reference from here on.
    reference = { count: probe.totalCount, through: settledThroughOf(probe)! };
    await run.deliver(fresh, checkpoint.since);
  }
}
