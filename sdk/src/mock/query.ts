// The query string of listLoads, read by the contract's one reader (@loadfeed/spec/query), the same the
// reference server answers with: the mock refuses exactly what the server refuses, in the same words.
import type { LoadStatus } from '@loadfeed/spec';
import { rawQueryOf, readListLoadsQuery } from '@loadfeed/spec/query';

/** A listLoads query with its dates as epoch-ms bounds (inclusive lower, exclusive upper). */
export interface ParsedQuery {
  page: number;
  pageSize: number;
  updatedSince?: number;
  statuses?: ReadonlySet<LoadStatus>;
  pickupFrom?: number;
  pickupBefore?: number;
  deliveryFrom?: number;
  deliveryBefore?: number;
  poNumber?: string;
  billingRefNumber?: string;
}

/** An inclusive bound (an instant the reader wrote at millisecond precision) as epoch ms. */
const msOf = (instant: string | undefined) => (instant === undefined ? undefined : Date.parse(instant));

/** The query, or the per-parameter messages of a 400. */
export function parseQuery(search: URLSearchParams, { maxPageSize }: { maxPageSize: number }): { query: ParsedQuery } | { details: string[] } {
  const read = readListLoadsQuery(rawQueryOf(search), maxPageSize);
  if ('details' in read) return read;
  const { filters } = read;
  const pickupTo = msOf(filters.pickupTo);
  const deliveryTo = msOf(filters.deliveryTo);
  return {
    query: {
      page: filters.page,
      pageSize: filters.pageSize,
      updatedSince: msOf(filters.updatedSince),
      statuses: filters.statuses && new Set(filters.statuses),
      pickupFrom: msOf(filters.pickupFrom),
      pickupBefore: pickupTo === undefined ? undefined : pickupTo + 1,
      deliveryFrom: msOf(filters.deliveryFrom),
      deliveryBefore: deliveryTo === undefined ? undefined : deliveryTo + 1,
      poNumber: filters.poNumber,
      billingRefNumber: filters.billingRefNumber,
    },
  };
}
