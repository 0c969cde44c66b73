// A listLoads request's query, read by the contract's one reader (@loadfeed/spec/query), which the SDK's
// mock uses too; its problems become the 400, raised here where they are found.
import Boom from '@hapi/boom';
import { readListLoadsQuery, type LoadFilters, type RawQuery } from '@loadfeed/spec/query';

export type { LoadFilters };

/** The filters of a request's query, or a 400 whose `details` names every problem once. */
export function parseListLoadsQuery(query: RawQuery, maxPageSize: number): LoadFilters {
  const read = readListLoadsQuery(query, maxPageSize);
  if ('details' in read) throw Boom.badRequest('Invalid query parameters', { details: read.details });
  return read.filters;
}
