// The reference rolling window of SPEC §8 and DECISIONS' "Rate limit", written out as plainly as it reads:
// a request at `t` (milliseconds of the database's clock) is admitted when fewer than `limit` admitted
// requests were made in (t - RATE_WINDOW_MS, t]; the headers follow DECISIONS' arithmetic.
import { RATE_WINDOW_MS } from '@loadfeed/spec';

export const WINDOW_MS = RATE_WINDOW_MS;

export interface ReferenceDecision {
  admitted: boolean;
  remaining: number;
  resetAt: number;
  retryAfter?: number;
}

export class ReferenceWindow {
  readonly admitted: number[] = [];

  constructor(readonly limit: number) {}

  request(t: number): ReferenceDecision {
    const inWindow = this.admitted.filter((at) => at > t - WINDOW_MS);
    const admitted = inWindow.length < this.limit;
    if (admitted) {
      this.admitted.push(t);
      inWindow.push(t);
    }
    const decision: ReferenceDecision = {
      admitted,
      remaining: Math.max(0, this.limit - inWindow.length),
      resetAt: Math.ceil((inWindow.length > 0 ? inWindow[0]! + WINDOW_MS : t) / 1000),
    };
    if (!admitted) decision.retryAfter = Math.max(1, Math.ceil((inWindow[inWindow.length - this.limit]! + WINDOW_MS - t) / 1000));
    return decision;
  }
}

/** How many of `admitted` (ascending) were made in (from, to]. */
export function countIn(admitted: readonly number[], from: number, to: number): number {
  return countUpTo(admitted, to) - countUpTo(admitted, from);
}

/** How many of `admitted` (ascending) were made at or before `at`. */
export function countUpTo(admitted: readonly number[], at: number): number {
  let low = 0;
  let high = admitted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (admitted[middle]! <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}
