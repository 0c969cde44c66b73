// How many pages a sync reads by page number before it checks that nothing moved behind it (sync.ts,
// README "Ties"), as data. A check costs one request, so a first copy with nothing written meanwhile
// checks every `pageSize` pages: then N rows at s a page take at most ceil(N / s) + floor((ceil(N / s) - 1) / s)
// requests, never more than the key walk's ceil(N / (s - 1)) + 1, whatever the ties. A check that fails
// costs the pages since the last good one again (read by key); so after one, stretches start short and
// the sync walks by key for a while, longer after each failure in a row, and a busy customer's copy
// costs a bounded number of requests more than the key walk alone.
export const STRETCH_POLICY = {
  /** Pages between two checks, at most and at first: as many as a page has rows (see above). */
  longestStretch: (pageSize: number) => Math.max(2, pageSize),
  /** Pages between two checks after a failed one; each check that passes doubles it, up to the longest. */
  shortestStretch: 2,
  /** Pages walked by key after the n-th failed check in a row, before page numbers are tried again. */
  keyPagesAfterFailure: (failuresInRow: number) => 2 ** Math.min(failuresInRow, 10),
  /**
   * Pages ahead from which a stretch is taken at one request more than the key walk: each page of the key
   * walk is a new updatedSince, which the server counts afresh (every row after it), where a stretch's
   * pages share one count; the request is the probe, which a first copy's bound leaves room for.
   */
  oneMoreRequestFromPages: 32,
} as const;

/**
 * Whether reading `rest` rows by page number (one check first, one per `stretch` pages, and the `tie` rows
 * at the anchor read again) takes fewer requests than the key walk, which reads a page's tie again on every
 * page: with distinct updatedAt values only past about pageSize² rows; with ties of tens of rows at 100 a
 * page, almost always; with a tie that fills the page, always. From `oneMoreRequestFromPages` pages on, one
 * request more than the key walk still pays: the key walk makes the server count what is left on every
 * page (O(rows²) for a first copy), a stretch once. A first copy then still takes at most
 * ceil(N / (pageSize - 1)) + 1 requests: the key walk's own pages are one fewer than that.
 */
export function stretchPays(rest: number, tie: number, pageSize: number, stretch: number, policy = STRETCH_POLICY): boolean {
  // A tie that fills a page is a group the key walk reads from its last page down, with a count and a page
  // past its end: always dearer than page numbers, which read through it.
  if (tie >= pageSize) return true;
  const pages = Math.ceil((rest + tie) / pageSize);
  const byNumber = 1 + pages + Math.floor(Math.max(0, pages - 1) / stretch);
  const byKey = Math.ceil(rest / (pageSize - tie));
  return byNumber < byKey || (pages >= policy.oneMoreRequestFromPages && byNumber <= byKey + 1);
}

export interface StretchPlan {
  /** Whether the next step may read by page number (false: one step of the key walk). */
  mayStretch(): boolean;
  /** Pages to read between two checks now. */
  stretchPages(pageSize: number): number;
  keyPageWalked(): void;
  checkPassed(): void;
  checkFailed(): void;
  /** The deployment contradicted what it says of its feed: the rest of the run walks by key. */
  distrust(): void;
}

export function stretchPlan(policy = STRETCH_POLICY): StretchPlan {
  let stretch: number | undefined;
  let failuresInRow = 0;
  let keyPagesLeft = 0;
  let distrusted = false;
  return {
    mayStretch: () => !distrusted && keyPagesLeft === 0,
    stretchPages: (pageSize) => Math.min(stretch ?? policy.longestStretch(pageSize), policy.longestStretch(pageSize)),
    keyPageWalked() {
      keyPagesLeft = Math.max(0, keyPagesLeft - 1);
    },
    checkPassed() {
      failuresInRow = 0;
      if (stretch !== undefined) stretch *= 2;
    },
    checkFailed() {
      failuresInRow += 1;
      stretch = policy.shortestStretch;
      keyPagesLeft = policy.keyPagesAfterFailure(failuresInRow);
    },
    distrust() {
      distrusted = true;
    },
  };
}
