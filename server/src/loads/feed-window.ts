// The feed's horizon (SPEC §1, DECISIONS.md): loads scheduled to pick up on or after today (UTC) minus
// 12 months. Computed here from the injected clock and passed to SQL as a bound parameter: a `now()`
// inside the query would hide the value from the planner, which then could not use the partial index.

/** The first instant inside the window on `now`'s day; a day past a short month's end clamps to it. */
export function feedWindowStart(now: Date): Date {
  const year = now.getUTCFullYear() - 1;
  const month = now.getUTCMonth();
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay)));
}
