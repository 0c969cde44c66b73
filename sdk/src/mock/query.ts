// The query string of listLoads as the reference server reads it (DECISIONS.md "Query parameters"):
// unknown, repeated single-valued and empty parameters are 400s, dates follow RFC 3339 or a date alone.
import { LIST_LOADS_PARAMETERS, LOAD_STATUSES, openApiDocument, type ListLoadsQuery, type LoadStatus } from '@loadfeed/spec';

const REPEATABLE = new Set<string>(['status']);
const INTEGER = /^\d+$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.(\d+))?(?:Z|[+-]\d{2}:\d{2})$/i;
const DAY_MS = 86_400_000;
const QUOTED_LENGTH = 40;

/** What a parameter takes, in words read from its schema in the contract (SPEC fixes no wording). */
function ruleOf(name: string): string {
  const schema = Object.values(openApiDocument.components.parameters).find((parameter) => parameter.name === name)?.schema ?? {};
  if (schema.type === 'integer') return `an integer of at least ${schema.minimum ?? 0}`;
  if (schema.type === 'array') return `one of ${LOAD_STATUSES.join(', ')}`;
  if (schema.type === 'string') return 'a non-empty string';
  return 'a date (YYYY-MM-DD) or an RFC 3339 date-time with Z or an offset';
}

function quote(value: string): string {
  return JSON.stringify(value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value);
}

const invalid = (name: string, value: string) => `${name}: expected ${ruleOf(name)}, got ${quote(value)}`;

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
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const instant = Date.parse(value.replace(' ', 'T'));
  if (Number.isNaN(instant)) return undefined;
  // Digits below a millisecond put a lower bound on the next millisecond, as the server's comparison does.
  const belowMs = /[1-9]/.test((match[1] ?? '').slice(3));
  return bound === 'lower' ? instant + (belowMs ? 1 : 0) : instant + 1;
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
  const details = new Set<string>();
  const values = new Map<string, string[]>();
  for (const [name, value] of search) values.set(name, [...(values.get(name) ?? []), value]);
  const query: ParsedQuery = { page: 1, pageSize: defaults.pageSize };
  const set = query as unknown as Record<string, unknown>;

  for (const [name, given] of values) {
    if (!known.has(name)) {
      details.add(`${quote(name)} is not a parameter of listLoads (${LIST_LOADS_PARAMETERS.join(', ')})`);
      continue;
    }
    if (given.length > 1 && !REPEATABLE.has(name)) {
      details.add(`${name}: given ${given.length} times, but only status repeats`);
      continue;
    }
    if (given.some((value) => value === '')) {
      details.add(`${name}: empty`);
      continue;
    }
    const value = given[0]!;
    if (name === 'page' || name === 'pageSize') {
      const number = INTEGER.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(number) || number < 1) details.add(invalid(name, value));
      else set[name] = name === 'pageSize' ? Math.min(number, defaults.maxPageSize) : number;
    } else if (name === 'status') {
      const unknown = given.filter((status) => !(LOAD_STATUSES as readonly string[]).includes(status));
      for (const status of unknown) details.add(invalid('status', status));
      if (unknown.length > 0) continue;
      query.statuses = new Set(given as LoadStatus[]);
    } else if (name in DATE_PARAMETERS) {
      const { key, bound } = DATE_PARAMETERS[name]!;
      const instant = parseDate(value, bound);
      if (instant === undefined) details.add(invalid(name, value));
      else set[key] = instant;
    } else {
      set[name as keyof ListLoadsQuery] = value;
    }
  }
  return details.size > 0 ? { details: [...details] } : { query };
}
