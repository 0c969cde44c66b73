// A `loads` row as the API shows it (SPEC §2): every field present, null when empty, date-times as
// UTC with milliseconds and Z, decimals as the strings PostgreSQL keeps, and no createdAt.
import { LOAD_FIELDS, type Load, type LoadField } from '@loadfeed/spec';
import { columnOf } from './columns.js';

/** A row selected with LOAD_SELECT_LIST: field names, date-times still as Dates. */
export type LoadRow = { [Field in LoadField]: Load[Field] | Date };

/** `l.load_number AS "loadNumber", ...`: the columns of every Load field, named as the fields. */
export const LOAD_SELECT_LIST = LOAD_FIELDS.map((field) => `l.${columnOf(field)} AS "${field}"`).join(', ');

export function serializeLoad(row: LoadRow): Load {
  const load: Record<string, unknown> = {};
  for (const field of LOAD_FIELDS) {
    const value = row[field];
    load[field] = value instanceof Date ? value.toISOString() : value;
  }
  return load as Load;
}
