// Where each Load field lives in the `loads` table: the column is the field's name in snake_case
// (migrations/0002_loads.sql), so this table is derived from the contract's field list, not retyped.
import { DATE_TIME_LOAD_FIELDS, LOAD_FIELDS, type LoadField } from '@loadfeed/spec';

/** Kept as `numeric`, so a decimal string comes back with the digits it was written with. */
export const DECIMAL_LOAD_FIELDS = ['miles', 'totalCost'] as const satisfies readonly LoadField[];
/** Set by the database (the updatedAt rule), never by a writer. */
export const SERVER_KEPT_FIELD = 'updatedAt' satisfies LoadField;

export type WritableLoadField = Exclude<LoadField, typeof SERVER_KEPT_FIELD>;
export type SqlType = 'text' | 'timestamptz' | 'numeric' | 'load_status';

export const WRITABLE_LOAD_FIELDS = LOAD_FIELDS.filter((field): field is WritableLoadField => field !== SERVER_KEPT_FIELD);

export function columnOf(field: LoadField): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function sqlTypeOf(field: LoadField): SqlType {
  if (field === 'status') return 'load_status';
  if ((DECIMAL_LOAD_FIELDS as readonly LoadField[]).includes(field)) return 'numeric';
  if (DATE_TIME_LOAD_FIELDS.includes(field)) return 'timestamptz';
  return 'text';
}
