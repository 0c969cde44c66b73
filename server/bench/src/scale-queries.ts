// The requests of `npm run bench:scale` (the issue "The feed at a big shipper's size"): page 1 and the last
// page of each filter and common pair, the delta poll, an exact match, and the deepest full page of 1000,
// each as a query string and as the statements ours runs for it with and without a kept count.
import { feedWindowStart } from '@loadfeed/spec';
import type { LoadFilters } from '../../dist/loads/list-query.js';
import { choosePageStatement, type FeedScope } from '../../dist/loads/list.js';
import { COUNT_SQL, PAGE_STATEMENTS } from '../../dist/loads/list-statements.js';
import type { Statement } from './sweep.js';

const DAY = 86_400_000;

export interface ScaleQuery {
  label: string;
  filters: Omit<LoadFilters, 'page' | 'pageSize'>;
  pageSize: number;
  /** Which page: the first, or the last of the filters' count. */
  last: boolean;
}

/** The table's rows; dates are the last full week (UTC) before today. */
export function scaleQueries(now: Date): ScaleQuery[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const iso = (ms: number) => new Date(ms).toISOString();
  const pickupWeek = { pickupFrom: iso(today - 7 * DAY), pickupTo: iso(today - 1) };
  const deliveryWeek = { deliveryFrom: iso(today - 5 * DAY), deliveryTo: iso(today + 2 * DAY - 1) };
  const dayAgo = iso(now.getTime() - DAY);
  const first = (label: string, filters: ScaleQuery['filters'], pageSize = 100): ScaleQuery => ({ label, filters, pageSize, last: false });
  const last = (label: string, filters: ScaleQuery['filters'], pageSize = 100): ScaleQuery => ({ label, filters, pageSize, last: true });
  return [
    first('page 1', {}),
    first('status=InTransit', { statuses: ['InTransit'] }),
    last('status=InTransit, last page', { statuses: ['InTransit'] }),
    first('a pickup week', pickupWeek),
    last('a pickup week, last page', pickupWeek),
    first('a delivery week', deliveryWeek),
    first('InTransit + pickup week', { statuses: ['InTransit'], ...pickupWeek }),
    first('InTransit + delivery week', { statuses: ['InTransit'], ...deliveryWeek }),
    first('updatedSince 1 day + InTransit', { updatedSince: dayAgo, statuses: ['InTransit'] }),
    first('updatedSince one day ago', { updatedSince: dayAgo }),
    first('poNumber=', { poNumber: 'PO-777' }),
    last('deepest full page of 1000', {}, 1000),
  ];
}

/** The query string of a request for `page`. */
export function queryString({ filters, pageSize }: ScaleQuery, page: number): string {
  const parameters = new URLSearchParams({ page: String(page), pageSize: String(pageSize) });
  for (const status of filters.statuses ?? []) parameters.append('status', status);
  for (const name of ['updatedSince', 'pickupFrom', 'pickupTo', 'deliveryFrom', 'deliveryTo', 'poNumber'] as const) {
    if (filters[name] !== undefined) parameters.set(name, filters[name]);
  }
  return parameters.toString();
}

/** The page a query asks for, given its count: 1, or the last (full, for the deepest page of 1000). */
export function pageOf({ pageSize, last, label }: ScaleQuery, count: number): number {
  if (!last) return 1;
  return Math.max(1, label.startsWith('deepest full') ? Math.floor(count / pageSize) : Math.ceil(count / pageSize));
}

export function scopeOf(customerId: string, now: Date): FeedScope {
  return { customerId, windowStart: feedWindowStart(now), settledThrough: now.toISOString() };
}

/**
 * What ours runs for the page without a kept count (a write moved the version): page 1 with its count in one
 * statement, a later page counted first then read from the nearer end. `before` reads every filter through
 * the feed index's statements, as the release before did.
 */
export function statementsOf(query: ScaleQuery, scope: FeedScope, count: number, before: boolean): Statement[] {
  const filters: LoadFilters = { ...query.filters, page: pageOf(query, count), pageSize: query.pageSize };
  const counted = choosePageStatement(scope, filters, undefined, true);
  const kept = choosePageStatement(scope, filters, count);
  const counting = choosePageStatement(scope, { ...filters, page: 2 }, undefined);
  if (!before) return filters.page === 1 ? [counted] : [{ sql: counting.sql, values: counted.values.slice(0, 1) }, kept];
  const feed = PAGE_STATEMENTS.feed;
  const countedPages = Object.values(PAGE_STATEMENTS).flatMap((statements) => [statements.countedPage, statements.countedPageByCounters]);
  const pagesOf = (from: 'fromStart' | 'fromEnd') => Object.values(PAGE_STATEMENTS).map((statements) => statements[from]);
  const swap = (sql: string) => (countedPages.includes(sql) ? feed.countedPage : pagesOf('fromEnd').includes(sql) ? feed.fromEnd : pagesOf('fromStart').includes(sql) ? feed.fromStart : sql);
  if (filters.page === 1) return [{ sql: swap(counted.sql), values: counted.values }];
  return [{ sql: COUNT_SQL, values: counted.values.slice(0, 1) }, { sql: swap(kept.sql), values: kept.values }];
}
