// The feed's 12-month pickup window (SPEC §1, §4; DECISIONS.md, "Dates and the window"): loads scheduled to
// pick up on or after today (UTC) minus 12 months. The server passes its start to SQL as a bound
// parameter, the mock filters by it and the kit allows for it, so all three draw the line on the same day.
// SPEC §8's table calls it the "Feed horizon"; the code calls it the window, because "horizon" here names
// only the settled instant (X-Feed-Settled-Through: every change stamped at or before it is served).

/** The first instant inside the window on `now`'s day; a day past a short month's end clamps to it. */
export function feedWindowStart(now: Date): Date {
  const year = now.getUTCFullYear() - 1;
  const month = now.getUTCMonth();
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay)));
}
