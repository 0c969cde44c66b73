// Names and numbers that code needs from the contract, read from the document rather than retyped,
// so that a change to openapi.yaml reaches the server, the SDK and the kit at once.
import type { components, operations, paths } from '../generated/schema.js';
import { openApiDocument } from './document.js';

export type { components, operations, paths };
export type Load = components['schemas']['Load'];
export type LoadStatus = components['schemas']['LoadStatus'];
export type LoadPage = components['schemas']['LoadPage'];
export type ErrorBody = components['schemas']['ErrorBody'];
export type ValidationErrorBody = components['schemas']['ValidationErrorBody'];
export type ListLoadsQuery = NonNullable<operations['listLoads']['parameters']['query']>;
export type LoadField = keyof Load;

const { schemas, parameters } = openApiDocument.components;
const loadSchema = schemas.Load!;
const loadProperties = loadSchema.properties!;

export const LIST_LOADS_PATH = '/api/v1/loads';
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The closed list of load statuses, in the document's order. */
export const LOAD_STATUSES = schemas.LoadStatus!.enum as readonly LoadStatus[];

/** The 23 Load fields, all required, in the document's order. */
export const LOAD_FIELDS = loadSchema.required as readonly LoadField[];

/** Load fields that carry null when they have no value. */
export const NULLABLE_LOAD_FIELDS = LOAD_FIELDS.filter((field) =>
  [loadProperties[field]!.type].flat().includes('null'),
);

/** Load fields whose values are date-times. */
export const DATE_TIME_LOAD_FIELDS = LOAD_FIELDS.filter(
  (field) => loadProperties[field]!.format === 'date-time',
);

/** The one extra Load property clients must tolerate (SPEC §2): an ISO 8601 date-time. */
export const TOLERATED_EXTRA_LOAD_FIELD = 'createdAt';

/** The query parameters of listLoads, by name. */
export const LIST_LOADS_PARAMETERS = Object.values(parameters).map((parameter) => parameter.name) as readonly (keyof ListLoadsQuery)[];

export const DEFAULT_PAGE = parameters.page!.schema.default as number;
export const DEFAULT_PAGE_SIZE = parameters.pageSize!.schema.default as number;
/** The largest page size any deployment may echo; a server's own maximum may be lower. */
export const PAGE_SIZE_CEILING = schemas.LoadPage!.properties!.pageSize!.maximum as number;

export const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
export const RETRY_AFTER_HEADER = 'retry-after';
/** Optional on a 200: the instant through which the feed is settled (DECISIONS.md, the settled feed). */
export const SETTLED_THROUGH_HEADER = 'x-feed-settled-through';

/** An API key's fixed live prefix, before its secret part (SPEC §5; DECISIONS.md, "Authentication"). */
export const API_KEY_PREFIX = 'lf_live_';
/** The rate limit's rolling window (SPEC §8). */
export const RATE_WINDOW_MS = 60_000;
/** A key's requests per window when it has no limit of its own (SPEC §8). */
export const DEFAULT_RATE_LIMIT = 10;

/** Every date-time in a response: UTC, exactly three fractional digits, `Z` (SPEC §2). */
export const RESPONSE_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
