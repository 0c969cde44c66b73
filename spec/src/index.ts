// @loadfeed/spec: the contract's types and facts, cheap to import. The document itself is
// `@loadfeed/spec/document`, the response validator (ajv) `@loadfeed/spec/validate` and the query reader
// (joi) `@loadfeed/spec/query`: only what serves, checks or mocks the API loads them.
export * from './contract.js';
export { feedWindowStart } from './feed-window.js';
/** listLoads's filters declared once, and the matching that follows from their kinds. */
export { LIST_LOADS_FILTERS, filtersOfKind } from './filters.js';
export type { FilterDeclaration, FilterKey, FilterKind, FilterName, LoadFilters } from './filters.js';
export { loadMatcher } from './filter-match.js';
/** The dates and date-times the API accepts, read exactly (also in `/query`, beside the query reader). */
export { parseInstant, lowerBoundMs, upperBoundMs } from './dates.js';
export type { Instant } from './dates.js';
/** The Load schema's field rules as one generated function: a client's fast yes-or-no per row. */
export { loadFieldsKeepTheirRules } from './generated/load-check.js';
export type { OpenApiDocument, JsonSchema } from './document.js';
export type { Violation, ResponseToCheck } from './validate.js';
