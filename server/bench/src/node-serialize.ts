// Rows turned into JSON in Node, the way the reference server did before its pages came from
// PostgreSQL as JSON text: kept for the baselines that serialize in Node.
import { LOAD_FIELDS, type Load, type LoadField } from '@loadfeed/spec';
import { columnOf } from '../../dist/loads/columns.js';

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
