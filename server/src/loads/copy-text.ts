// A checked load as a row of COPY's text format, in the staging table's column order
// (src/loads/import-sql.ts, COPY_SQL): its line number, then the writable fields.
import { DATE_TIME_LOAD_FIELDS } from '@loadfeed/spec';
import { WRITABLE_LOAD_FIELDS } from './columns.js';
import type { LoadRecord } from './load-input.js';
import { storedDateTimeMs } from './stored-date-time.js';

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** Whether a value holds one of them: one test for nearly every value, which holds none. */
const COPY_SPECIAL = /[\\\n\r\t]/;
const COPY_SPECIALS = /[\\\n\r\t]/g;

/** A value in COPY's text format: \N for null, and the four characters the format gives meaning escaped. */
function copyValue(value: string | null): string {
  if (value === null) return '\\N';
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIALS, (character) => COPY_ESCAPES[character]!) : value;
}

/** A date-time as staged: milliseconds since 1970 (import-sql.ts, STAGING_SQL), digits only. */
function copyDateTime(value: string | null): string {
  return value === null ? '\\N' : String(storedDateTimeMs(value));
}

/** Each writable field's writer, in WRITABLE_LOAD_FIELDS' order: chosen once, not for every value of every row. */
const DATE_TIME_FIELDS: ReadonlySet<string> = new Set(DATE_TIME_LOAD_FIELDS);
const FIELD_WRITERS = WRITABLE_LOAD_FIELDS.map((field) => [field, DATE_TIME_FIELDS.has(field) ? copyDateTime : copyValue] as const);

/** One row of COPY text, with its newline. */
export function copyRow(line: number, record: LoadRecord): string {
  let text = String(line);
  for (const [field, write] of FIELD_WRITERS) text += `\t${write(record[field])}`;
  return `${text}\n`;
}
