// How the 23 Load fields become typed columns in a customer's SQL database: one column per field, named
// in snake_case (`loadNumber` -> load_number), date-times as timestamptz, decimals as numeric, the rest
// text; a field the contract never leaves null is NOT NULL.
import { DATE_TIME_LOAD_FIELDS, LOAD_FIELDS, NULLABLE_LOAD_FIELDS, type LoadField } from '@loadfeed/spec';

/** The fields SPEC §2 gives as decimal strings (the contract's pattern `^-?[0-9]+(\.[0-9]+)?$`; a test holds this list to the document). */
export const DECIMAL_LOAD_FIELDS: readonly LoadField[] = ['miles', 'totalCost'];

export type ColumnType = 'text' | 'timestamptz' | 'numeric';

export interface LoadColumn {
  field: LoadField;
  column: string;
  type: ColumnType;
  notNull: boolean;
}

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const typeOf = (field: LoadField): ColumnType =>
  DATE_TIME_LOAD_FIELDS.includes(field) ? 'timestamptz' : DECIMAL_LOAD_FIELDS.includes(field) ? 'numeric' : 'text';

export const LOAD_COLUMNS: readonly LoadColumn[] = LOAD_FIELDS.map((field) => ({
  field,
  column: snakeCase(field),
  type: typeOf(field),
  notNull: !NULLABLE_LOAD_FIELDS.includes(field),
}));
