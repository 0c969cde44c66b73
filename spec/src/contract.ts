// Names and numbers that code needs from the contract, generated from the document rather than retyped,
// so that a change to openapi.yaml reaches the server, the SDK and the kit at once; importing them parses
// nothing and loads no validator.
import type { components, operations, paths } from '../generated/schema.js';
import * as facts from './generated/facts.js';

export type { components, operations, paths };
export type Load = components['schemas']['Load'];
export type LoadStatus = components['schemas']['LoadStatus'];
export type LoadPage = components['schemas']['LoadPage'];
export type ErrorBody = components['schemas']['ErrorBody'];
export type ValidationErrorBody = components['schemas']['ValidationErrorBody'];
export type ListLoadsQuery = NonNullable<operations['listLoads']['parameters']['query']>;
export type LoadField = keyof Load;
/** What a writer gives for one load (an import's line, the mock's upsert): loadNumber and status, the rest optional, never updatedAt. */
export type LoadInput = Pick<Load, 'loadNumber' | 'status'> & Partial<Omit<Load, 'loadNumber' | 'status' | 'updatedAt'>>;

export const LIST_LOADS_PATH = '/api/v1/loads';
export const OPENAPI_PATH = '/api/v1/openapi.json';

// The facts below come from generated/facts.ts, which `npm run generate` writes from openapi.yaml (a
// drift test keeps it current); the annotations check them against the generated types.

/** The closed list of load statuses, in the document's order. */
export const LOAD_STATUSES: readonly LoadStatus[] = facts.LOAD_STATUSES;

/** The 23 Load fields, all required, in the document's order. */
export const LOAD_FIELDS: readonly LoadField[] = facts.LOAD_FIELDS;

/** Load fields that carry null when they have no value. */
export const NULLABLE_LOAD_FIELDS: readonly LoadField[] = facts.NULLABLE_LOAD_FIELDS;

/** Load fields whose values are date-times. */
export const DATE_TIME_LOAD_FIELDS: readonly LoadField[] = facts.DATE_TIME_LOAD_FIELDS;

/** The pattern each patterned Load string field must match (the states, the times, the decimal strings). */
export const LOAD_FIELD_PATTERNS: Readonly<Partial<Record<LoadField, string>>> = facts.LOAD_FIELD_PATTERNS;

/** The one extra Load property clients must tolerate (SPEC §2): an ISO 8601 date-time. */
export const TOLERATED_EXTRA_LOAD_FIELD = 'createdAt';

/** The query parameters of listLoads, by name. */
export const LIST_LOADS_PARAMETERS: readonly (keyof ListLoadsQuery)[] = facts.LIST_LOADS_PARAMETERS;

export const DEFAULT_PAGE: number = facts.DEFAULT_PAGE;
export const DEFAULT_PAGE_SIZE: number = facts.DEFAULT_PAGE_SIZE;
/** The largest page size any deployment may echo; a server's own maximum may be lower. */
export const PAGE_SIZE_CEILING: number = facts.PAGE_SIZE_CEILING;
/** The reference server's maximum page size unless its operator sets another, and the mock's (DECISIONS.md). */
export const DEFAULT_MAX_PAGE_SIZE: number = facts.DEFAULT_MAX_PAGE_SIZE;
/** The rate limit's rolling window, in milliseconds (SPEC §8). */
export const RATE_WINDOW_MS: number = facts.RATE_WINDOW_MS;
/** The rate window in whole seconds, as headers and `Retry-After` count it. */
export const RATE_WINDOW_SECONDS: number = RATE_WINDOW_MS / 1000;
/** A key's requests per window when it has no limit of its own (SPEC §8). */
export const DEFAULT_RATE_LIMIT: number = facts.DEFAULT_RATE_LIMIT;

/** The response headers the contract names, as it spells them (components.headers). */
export const RESPONSE_HEADERS = facts.RESPONSE_HEADERS;
// The names below are lower case, as Headers, Node and Playwright hand them to a reader; a server writes
// RESPONSE_HEADERS' spelling.
const lowerCase = <Name extends string>(name: Name) => name.toLowerCase() as Lowercase<Name>;
/** The three rate-limit headers (SPEC §8), on every 200, 400 and 429. */
export const RATE_LIMIT_HEADERS = [lowerCase(RESPONSE_HEADERS.rateLimitLimit), lowerCase(RESPONSE_HEADERS.rateLimitRemaining), lowerCase(RESPONSE_HEADERS.rateLimitReset)] as const;
export const RETRY_AFTER_HEADER = lowerCase(RESPONSE_HEADERS.retryAfter);
/** Optional on a 200: the instant through which the feed is settled (DECISIONS.md, the settled feed). */
export const SETTLED_THROUGH_HEADER = lowerCase(RESPONSE_HEADERS.feedSettledThrough);
export const REQUEST_ID_HEADER = lowerCase(RESPONSE_HEADERS.requestId);

/**
 * A header the contract types as a non-negative integer (the rate headers, Retry-After), read: its
 * number, or undefined when it is missing or not digits (surrounding spaces allowed, as HTTP allows them).
 */
export function integerHeaderValue(value: string | null | undefined): number | undefined {
  return value !== null && value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined;
}

/** An API key's fixed live prefix, before its secret part (SPEC §5; DECISIONS.md, "Authentication"). */
export const API_KEY_PREFIX = 'lf_live_';

/** Every date-time in a response: UTC, exactly three fractional digits, `Z` (SPEC §2). */
export const RESPONSE_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
