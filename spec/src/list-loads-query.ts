// listLoads's query parameters: which exist, how each is written, and what each means, checked with
// joi against the names and statuses the contract declares. Every problem yields one message in
// `details`, naming the parameter. A query written the plain way (readPlainly) is read to the same
// filters without joi. The one reading of the query: the reference server answers with it,
// and the SDK's mock (@loadfeed/sdk/mock) too, so the two cannot disagree on what is a 400.
import Joi from 'joi';
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, LIST_LOADS_PARAMETERS, LOAD_STATUSES, type ListLoadsQuery, type LoadStatus } from './contract.js';
import { lowerBoundMs, parseInstant, toSqlTimestamp, upperBoundMs } from './dates.js';

/** A listLoads request, validated: bounds are inclusive instants (ISO strings), absent filters undefined. */
export interface LoadFilters {
  page: number;
  /** After clamping to the server's maximum. */
  pageSize: number;
  updatedSince?: string;
  statuses?: LoadStatus[];
  pickupFrom?: string;
  pickupTo?: string;
  deliveryFrom?: string;
  deliveryTo?: string;
  poNumber?: string;
  billingRefNumber?: string;
}

const REPEATABLE: ReadonlySet<string> = new Set<keyof ListLoadsQuery>(['status']);
/** Long values are cut in messages: the point is to recognise the value, not to echo a payload. */
const QUOTED_LENGTH = 40;

const PAGE_NUMBER = `a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`;
const PAGE_SIZE = 'a whole number of at least 1 (larger than the maximum is fine: it clamps)';
const LOWER_BOUND = 'a date (YYYY-MM-DD, meaning 00:00Z that day) or an RFC 3339 date-time with Z or an offset';
const UPPER_BOUND = 'a date (YYYY-MM-DD, covering that whole day) or an RFC 3339 date-time with Z or an offset';

/** What each parameter must be: the one source of every 400 message. */
const EXPECTED = {
  page: PAGE_NUMBER,
  pageSize: PAGE_SIZE,
  updatedSince: LOWER_BOUND,
  status: `one of ${LOAD_STATUSES.join(', ')}`,
  pickupFrom: LOWER_BOUND,
  pickupTo: UPPER_BOUND,
  deliveryFrom: LOWER_BOUND,
  deliveryTo: UPPER_BOUND,
  poNumber: 'a string without NUL characters',
  billingRefNumber: 'a string without NUL characters',
} satisfies Record<keyof ListLoadsQuery, string>;

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

const parameters = {
  page: positiveInteger.default(DEFAULT_PAGE),
  pageSize: clampedSize.default(DEFAULT_PAGE_SIZE),
  updatedSince: bound('lower'),
  status: Joi.array().single().items(Joi.string().valid(...LOAD_STATUSES)),
  pickupFrom: bound('lower'),
  pickupTo: bound('upper'),
  deliveryFrom: bound('lower'),
  deliveryTo: bound('upper'),
  poNumber: exactText,
  billingRefNumber: exactText,
} satisfies Record<keyof ListLoadsQuery, Joi.Schema>;

const schema = Joi.object(parameters).prefs({ abortEarly: false, convert: true });

interface ParsedQuery extends Omit<LoadFilters, 'statuses'> {
  status?: LoadStatus[];
}

function quote(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text);
}

/** A date-time whose offset lost its `+`: an unencoded `+` in a query string is read as a space. */
const PLUS_READ_AS_SPACE = /\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)? \d{2}:\d{2}$/;
const DATE_PARAMETERS: ReadonlySet<string> = new Set<keyof ListLoadsQuery>(['updatedSince', 'pickupFrom', 'pickupTo', 'deliveryFrom', 'deliveryTo']);

/** A hint after a message, for the one mistake a message alone does not explain. */
function hintFor(name: keyof ListLoadsQuery, sent: unknown): string {
  return DATE_PARAMETERS.has(name) && typeof sent === 'string' && PLUS_READ_AS_SPACE.test(sent)
    ? '; a "+" in a URL query reads as a space: encode the offset\'s "+" as %2B'
    : '';
}

function isParameter(name: string): name is keyof ListLoadsQuery {
  return (LIST_LOADS_PARAMETERS as readonly string[]).includes(name);
}

const STATUSES: ReadonlySet<string> = new Set(LOAD_STATUSES);
/** A page number or size written plainly: digits without a sign, a leading zero, a point or an exponent, few enough to be a safe integer. */
const PLAIN_WHOLE = /^[1-9][0-9]{0,14}$/;

/** A plain text value: not empty, no NUL. */
function isPlainText(value: string | string[]): value is string {
  return typeof value === 'string' && value !== '' && !value.includes('\u0000');
}

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
    let plain: unknown;
    switch (name) {
      case 'page':
      case 'pageSize':
        plain = typeof value === 'string' && PLAIN_WHOLE.test(value) ? Number(value) : undefined;
        break;
      case 'updatedSince':
      case 'pickupFrom':
      case 'deliveryFrom':
        plain = typeof value === 'string' ? boundOf(value, 'lower') : undefined;
        break;
      case 'pickupTo':
      case 'deliveryTo':
        plain = typeof value === 'string' ? boundOf(value, 'upper') : undefined;
        break;
      case 'status': {
        const statuses = [value].flat();
        plain = statuses.length > 0 && statuses.every((status) => STATUSES.has(status)) ? statuses : undefined;
        break;
      }
      case 'poNumber':
      case 'billingRefNumber':
        plain = isPlainText(value) ? value : undefined;
        break;
    }
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
      details.add(`${name} is given ${value.length} times; only status may repeat`);
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

/** The filters of a read query: pageSize clamped, statuses once each and last. */
function filtersOf({ status: statuses, ...rest }: ParsedQuery, maxPageSize: number): LoadFilters {
  return {
    ...rest,
    pageSize: Math.min(rest.pageSize, maxPageSize),
    ...(statuses ? { statuses: [...new Set(statuses)] } : {}),
  };
}
