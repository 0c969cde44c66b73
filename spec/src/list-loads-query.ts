// listLoads's query parameters: which exist, how each is written and what each means, checked with joi
// against the names the contract declares; a filter is read by its kind (filters.ts). Every problem yields one message in
// `details`, naming the parameter. A query written the plain way (readPlainly) is read to the same
// filters without joi. The one reading of the query: the reference server answers with it,
// and the SDK's mock (@loadfeed/sdk/mock) too, so the two cannot disagree on what is a 400.
import Joi from 'joi';
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, LIST_LOADS_PARAMETERS, type ListLoadsQuery } from './contract.js';
import { lowerBoundMs, parseInstant, toSqlTimestamp, upperBoundMs } from './dates.js';
import { filtersOfKind, LIST_LOADS_FILTERS, type FilterDeclaration, type FilterKind, type FilterName, type LoadFilters } from './filters.js';

/** Long values are cut in messages: the point is to recognise the value, not to echo a payload. */
const QUOTED_LENGTH = 40;

const PAGE_NUMBER = `a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`;
const PAGE_SIZE = 'a whole number of at least 1 (larger than the maximum is fine: it clamps)';
const LOWER_BOUND = 'a date (YYYY-MM-DD, meaning 00:00Z that day) or an RFC 3339 date-time with Z or an offset';
const UPPER_BOUND = 'a date (YYYY-MM-DD, covering that whole day) or an RFC 3339 date-time with Z or an offset';

/** The instant a date bound stands for (a lower bound's first, an upper bound's last), as SQL reads it; undefined when the text is no date bound. */
function boundOf(text: string, side: 'lower' | 'upper'): string | undefined {
  const instant = parseInstant(text, { allowDate: true });
  return instant && toSqlTimestamp(side === 'lower' ? lowerBoundMs(instant) : upperBoundMs(instant));
}

function bound(side: 'lower' | 'upper'): Joi.StringSchema {
  return Joi.string().custom((text: string, helpers) => boundOf(text, side) ?? helpers.error('any.invalid'));
}

const positiveInteger = Joi.number().integer().min(1);
// Any size above the maximum clamps, however many digits it has (SPEC §4), so a pageSize need not be a
// safe integer; a page number must be, or it could not be echoed exactly.
const clampedSize = positiveInteger.unsafe();
// No stored value holds NUL (PostgreSQL's text cannot), and the database would refuse it as a parameter.
const exactText = Joi.string().pattern(/\u0000/, { invert: true });

/** A plain text value: not empty, no NUL. */
function isPlainText(value: string | string[]): value is string {
  return typeof value === 'string' && value !== '' && !value.includes('\u0000');
}

/** How a filter of each kind is read: what it must be (the one source of its 400 message), its schema, and its plain reading (undefined: not plain). */
interface KindReading {
  expected(filter: FilterDeclaration): string;
  schema(filter: FilterDeclaration): Joi.Schema;
  plainly(value: string | string[], filter: FilterDeclaration): unknown;
}

const lowerBound: KindReading = {
  expected: () => LOWER_BOUND,
  schema: () => bound('lower'),
  plainly: (value) => (typeof value === 'string' ? boundOf(value, 'lower') : undefined),
};

const READING: Record<FilterKind, KindReading> = {
  since: lowerBound,
  'lower bound': lowerBound,
  'upper bound': {
    expected: () => UPPER_BOUND,
    schema: () => bound('upper'),
    plainly: (value) => (typeof value === 'string' ? boundOf(value, 'upper') : undefined),
  },
  set: {
    expected: ({ values = [] }) => `one of ${values.join(', ')}`,
    schema: ({ values = [] }) => Joi.array().single().items(Joi.string().valid(...values)),
    plainly: (value, { values = [] }) => {
      const given = [value].flat();
      return given.length > 0 && given.every((one) => values.includes(one)) ? given : undefined;
    },
  },
  exact: {
    expected: () => 'a string without NUL characters',
    schema: () => exactText,
    plainly: (value) => (isPlainText(value) ? value : undefined),
  },
};

const FILTERS: ReadonlyMap<string, FilterDeclaration> = new Map(LIST_LOADS_FILTERS.map((filter) => [filter.name, filter]));
const REPEATABLE: ReadonlySet<string> = new Set(filtersOfKind('set').map(({ name }) => name));

/** What each parameter must be: the one source of every 400 message. */
const EXPECTED: Record<string, string> = {
  page: PAGE_NUMBER,
  pageSize: PAGE_SIZE,
  ...Object.fromEntries(LIST_LOADS_FILTERS.map((filter) => [filter.name, READING[filter.kind].expected(filter)])),
} satisfies Record<'page' | 'pageSize', string>;

const parameters: Record<string, Joi.Schema> = {
  page: positiveInteger.default(DEFAULT_PAGE),
  pageSize: clampedSize.default(DEFAULT_PAGE_SIZE),
  ...Object.fromEntries(LIST_LOADS_FILTERS.map((filter) => [filter.name, READING[filter.kind].schema(filter)])),
};

const schema = Joi.object(parameters).prefs({ abortEarly: false, convert: true });

/** A query as read, by parameter name (a set still under its parameter's name). */
type ParsedQuery = { page: number; pageSize: number } & Partial<Record<FilterName, unknown>>;

function quote(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text);
}

/** A date-time whose offset lost its `+`: an unencoded `+` in a query string is read as a space. */
const PLUS_READ_AS_SPACE = /\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)? \d{2}:\d{2}$/;
const DATE_PARAMETERS: ReadonlySet<string> = new Set(filtersOfKind('since', 'lower bound', 'upper bound').map(({ name }) => name));

/** A hint after a message, for the one mistake a message alone does not explain. */
function hintFor(name: keyof ListLoadsQuery, sent: unknown): string {
  return DATE_PARAMETERS.has(name) && typeof sent === 'string' && PLUS_READ_AS_SPACE.test(sent)
    ? '; a "+" in a URL query reads as a space: encode the offset\'s "+" as %2B'
    : '';
}

function isParameter(name: string): name is keyof ListLoadsQuery {
  return (LIST_LOADS_PARAMETERS as readonly string[]).includes(name);
}

/** A page number or size written plainly: digits without a sign, a leading zero, a point or an exponent, few enough to be a safe integer. */
const PLAIN_WHOLE = /^[1-9][0-9]{0,14}$/;

/**
 * A query whose every parameter is written the plain way, read without joi: what the schema makes of
 * it, keys in the same order (joi keeps the query's order and adds the defaults after it, page first;
 * the count cache's key hashes the filters in that order). Undefined for any other query, which the
 * schema reads, with its conversions and its messages. Nearly every request is plain, and joi cost ~20 µs
 * a call in a loop, ~50 µs of a page request's server CPU under load (server/README.md, Benchmark).
 */
function readPlainly(query: RawQuery): ParsedQuery | undefined {
  const read: Record<string, unknown> = {};
  for (const name of Object.keys(query)) {
    const value = query[name]!;
    const filter = FILTERS.get(name);
    const plain = filter
      ? READING[filter.kind].plainly(value, filter)
      : (name === 'page' || name === 'pageSize') && typeof value === 'string' && PLAIN_WHOLE.test(value)
        ? Number(value)
        : undefined;
    if (plain === undefined) return undefined;
    read[name] = plain;
  }
  read.page ??= DEFAULT_PAGE;
  read.pageSize ??= DEFAULT_PAGE_SIZE;
  return read as unknown as ParsedQuery;
}

/** A query as a server framework hands it: a parameter given more than once as an array. */
export type RawQuery = Record<string, string | string[]>;

/** The same from a URL's search parameters. */
export function rawQueryOf(search: URLSearchParams): RawQuery {
  const query: RawQuery = {};
  for (const [name, value] of search) {
    const before = query[name];
    query[name] = before === undefined ? value : [before, value].flat();
  }
  return query;
}

/**
 * The filters of a request's query (`maxPageSize` is the deployment's maximum: larger sizes clamp to it),
 * or the `details` of its 400, naming every problem once.
 */
export function readListLoadsQuery(query: RawQuery, maxPageSize: number): { filters: LoadFilters } | { details: string[] } {
  const plain = readPlainly(query);
  return plain ? { filters: filtersOf(plain, maxPageSize) } : readBySchema(query, maxPageSize);
}

/** The same, by the schema: every problem named once, or joi's conversion of the values. */
function readBySchema(query: RawQuery, maxPageSize: number): { filters: LoadFilters } | { details: string[] } {
  const details = new Set<string>();
  const wellFormed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!isParameter(name)) {
      details.add(`${quote(name)} is not a parameter of this operation; the parameters are ${LIST_LOADS_PARAMETERS.join(', ')}`);
    } else if (Array.isArray(value) && !REPEATABLE.has(name)) {
      details.add(`${name} is given ${value.length} times; only ${[...REPEATABLE].join(', ')} may repeat`);
    } else if ([value].flat().includes('')) {
      details.add(`${name} must not be empty`);
    } else {
      wellFormed[name] = value;
    }
  }
  const { value, error } = schema.validate(wellFormed);
  for (const problem of error?.details ?? []) {
    const name = String(problem.path[0]) as keyof ListLoadsQuery;
    // What was sent, not what joi made of it (`1e400` converts to Infinity); a repeated status names its own value.
    const sent = problem.path.length > 1 ? problem.context?.value : wellFormed[name];
    details.add(`${name} must be ${EXPECTED[name]} (got ${quote(sent)})${hintFor(name, sent)}`);
  }
  if (details.size > 0) return { details: [...details] };
  return { filters: filtersOf(value as ParsedQuery, maxPageSize) };
}

/** The filters of a read query, under their keys: pageSize clamped, a set's values once each and last. */
function filtersOf(parsed: ParsedQuery, maxPageSize: number): LoadFilters {
  const filters: Record<string, unknown> = {};
  const sets: [string, unknown][] = [];
  for (const [name, value] of Object.entries(parsed)) {
    const filter = FILTERS.get(name);
    if (filter?.kind === 'set') sets.push([filter.key, [...new Set(value as string[])]]);
    else filters[filter?.key ?? name] = value;
  }
  filters.pageSize = Math.min(parsed.pageSize, maxPageSize);
  return Object.assign(filters, Object.fromEntries(sets)) as LoadFilters;
}
