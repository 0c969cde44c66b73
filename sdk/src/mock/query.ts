// The query string of listLoads as the reference server reads it (DECISIONS.md "Query parameters"):
// unknown, repeated single-valued and empty parameters are 400s, dates follow RFC 3339 or a date alone.
import { LIST_LOADS_PARAMETERS, LOAD_STATUSES, type ListLoadsQuery, type LoadStatus } from '@loadfeed/spec';

const REPEATABLE = new Set<string>(['status']);
const INTEGER = /^\d+$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const DAY_MS = 86_400_000;

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

type Bound = 'lower' | 'upper';

function parseDate(value: string, bound: Bound): number | undefined {
  if (DATE_ONLY.test(value)) {
    const day = Date.parse(`${value}T00:00:00.000Z`);
    if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== value) return undefined;
    return bound === 'lower' ? day : day + DAY_MS;
  }
  if (!DATE_TIME.test(value)) return undefined;
  const instant = Date.parse(value);
  if (Number.isNaN(instant)) return undefined;
  return bound === 'lower' ? instant : instant + 1;
}

const DATE_PARAMETERS: Record<string, { key: keyof ParsedQuery; bound: Bound }> = {
  updatedSince: { key: 'updatedSince', bound: 'lower' },
  pickupFrom: { key: 'pickupFrom', bound: 'lower' },
  pickupTo: { key: 'pickupBefore', bound: 'upper' },
  deliveryFrom: { key: 'deliveryFrom', bound: 'lower' },
  deliveryTo: { key: 'deliveryBefore', bound: 'upper' },
};

/** The query, or the per-parameter messages of a 400. */
export function parseQuery(search: URLSearchParams, defaults: { pageSize: number; maxPageSize: number }):
  | { query: ParsedQuery }
  | { details: string[] } {
  const known = new Set<string>(LIST_LOADS_PARAMETERS);
  const details: string[] = [];
  const values = new Map<string, string[]>();
  for (const [name, value] of search) values.set(name, [...(values.get(name) ?? []), value]);
  const query: ParsedQuery = { page: 1, pageSize: defaults.pageSize };
  const set = query as unknown as Record<string, unknown>;

  for (const [name, given] of values) {
    if (!known.has(name)) {
      details.push(`"${name}" is not a parameter of listLoads`);
      continue;
    }
    if (given.length > 1 && !REPEATABLE.has(name)) {
      details.push(`"${name}" must be given at most once`);
      continue;
    }
    if (given.some((value) => value === '')) {
      details.push(`"${name}" must not be empty`);
      continue;
    }
    const value = given[0]!;
    if (name === 'page' || name === 'pageSize') {
      const number = INTEGER.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(number) || number < 1) details.push(`"${name}" must be an integer of at least 1`);
      else set[name] = name === 'pageSize' ? Math.min(number, defaults.maxPageSize) : number;
    } else if (name === 'status') {
      const unknown = given.filter((status) => !(LOAD_STATUSES as readonly string[]).includes(status));
      if (unknown.length > 0) details.push(`"status" must be one of ${LOAD_STATUSES.join(', ')}`);
      else query.statuses = new Set(given as LoadStatus[]);
    } else if (name in DATE_PARAMETERS) {
      const { key, bound } = DATE_PARAMETERS[name]!;
      const instant = parseDate(value, bound);
      if (instant === undefined) details.push(`"${name}" must be a date (YYYY-MM-DD) or an RFC 3339 date-time`);
      else set[key] = instant;
    } else {
      set[name as keyof ListLoadsQuery] = value;
    }
  }
  return details.length > 0 ? { details } : { query };
}
