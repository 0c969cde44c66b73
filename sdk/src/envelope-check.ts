// What the client holds each response of listLoads to before handing it out: the envelope's fields and
// each row's light check, with the bounds on updatedAt the request and the response's headers set.
import { SETTLED_THROUGH_HEADER, type Violation } from '@loadfeed/spec';
import type { ListLoadsParams } from './client.js';
import { rowViolations, type UpdatedAtBounds } from './row-check.js';

/**
 * The envelope's fields (the page echoed as asked, which a sync's walk relies on) and every row's light
 * contract check (row-check.ts). The full schema check is @loadfeed/spec/validate's `checkLoadPage`, for
 * those who want it.
 */
export function pageViolations(body: unknown, requestedPage: number, bounds: UpdatedAtBounds): Violation[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [{ path: '/', message: 'must be a page envelope' }];
  const page = body as Record<string, unknown>;
  const violations: Violation[] = [];
  if (!Array.isArray(page.data)) violations.push({ path: '/data', message: 'must be an array' });
  if (typeof page.hasMore !== 'boolean') violations.push({ path: '/hasMore', message: 'must be a boolean' });
  if (!Number.isSafeInteger(page.totalCount) || (page.totalCount as number) < 0) violations.push({ path: '/totalCount', message: 'must be a whole number >= 0' });
  if (!Number.isSafeInteger(page.pageSize) || (page.pageSize as number) < 1) violations.push({ path: '/pageSize', message: 'must be a whole number >= 1' });
  if (page.page !== requestedPage) violations.push({ path: '/page', message: `must echo the page asked for (${requestedPage}), got ${JSON.stringify(page.page)}` });
  if (Array.isArray(page.data)) violations.push(...rowViolations(page.data, bounds));
  return violations;
}

/** One day: the margin on the server's `Date` when a deployment does not say how far its feed is settled. */
const CLOCK_MARGIN_MS = 86_400_000;

/**
 * What a row's `updatedAt` may be: not before the request's `updatedSince`, and not after how far the
 * response says the feed is settled, nor a day past the server's `Date` (or ours, where a browser hides
 * `Date`): a margin for clocks, not a policing of them. The point is to refuse a cursor from the far future.
 */
export function updatedAtBounds(params: ListLoadsParams, headers: Headers, serverNow: number): UpdatedAtBounds & { settledThrough?: number } {
  const since = params.updatedSince === undefined ? Number.NaN : Date.parse(params.updatedSince);
  const date = Date.parse(headers.get('date') ?? '');
  const dayAfter = (Number.isNaN(date) ? serverNow : date) + CLOCK_MARGIN_MS;
  const settled = Date.parse(headers.get(SETTLED_THROUGH_HEADER) ?? '');
  const bounds: UpdatedAtBounds & { settledThrough?: number } =
    !Number.isNaN(settled) && settled <= dayAfter
      ? { notBefore: undefined, notAfter: settled, notAfterReason: `the response's X-Feed-Settled-Through (${new Date(settled).toISOString()})`, settledThrough: settled }
      : { notBefore: undefined, notAfter: dayAfter, notAfterReason: `a day after ${Number.isNaN(date) ? 'the time now' : "the response's Date"} (${new Date(dayAfter).toISOString()})` };
  if (!Number.isNaN(since)) bounds.notBefore = since;
  return bounds;
}
