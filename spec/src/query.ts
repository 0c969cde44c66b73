// @loadfeed/spec/query: how a listLoads query string is read, and the dates the API accepts. A subpath of
// its own, so that importing the contract's names does not load joi.
export { readListLoadsQuery, rawQueryOf } from './list-loads-query.js';
export type { RawQuery } from './list-loads-query.js';
export type { LoadFilters } from './filters.js';
export { parseInstant, lowerBoundMs, upperBoundMs, toSqlTimestamp } from './dates.js';
export type { Instant } from './dates.js';
