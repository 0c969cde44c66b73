// A load as operators import it: the API's field names, no updatedAt, a left-out nullable field is
// null. Checked field by field against the contract's own schema (types, patterns, statuses), so that
// nothing the API could not serve gets in.
import Joi from 'joi';
import { LOAD_STATUSES, type Load } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import { SERVER_KEPT_FIELD, sqlTypeOf, WRITABLE_LOAD_FIELDS, type WritableLoadField } from './columns.js';
import { parseInstant, toSqlTimestamp } from '@loadfeed/spec/query';

/** A validated row: every writable field present, date-times normalised to milliseconds and Z. */
export type LoadRecord = { [Field in WritableLoadField]: Load[Field] };

const REQUIRED: ReadonlySet<WritableLoadField> = new Set(['loadNumber', 'status']);

/**
 * The longest value a field may hold, in characters. PostgreSQL refuses an index entry over about 2.7 kB
 * (loadNumber, poNumber and billingRefNumber are indexed), and fails a whole write when one row breaks
 * that; checked here, such a row is a bad line named with its field like any other. 255 characters are at
 * most 1,020 bytes of UTF-8, and more than any load number, name or place the feed carries needs; a
 * decimal string of 40 characters has more digits than any distance or amount.
 */
export const MAX_TEXT_LENGTH = 255;
export const MAX_DECIMAL_LENGTH = 40;
/** How much of a bad value a message quotes. */
const QUOTED_LENGTH = 60;
const properties = openApiDocument.components.schemas.Load!.properties!;
const WRITABLE: ReadonlySet<string> = new Set(WRITABLE_LOAD_FIELDS);

/**
 * What PostgreSQL cannot store in text, each refused with the field it is in: NUL, and a lone UTF-16
 * surrogate (JSON's `"\udc00"`), which is no Unicode character and so has no UTF-8 form.
 */
const UNSTORABLE = [
  { name: 'a NUL character (\\u0000)', pattern: /\u0000/ },
  { name: 'a lone surrogate (half of a UTF-16 pair, not a character)', pattern: /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/ },
] as const;

/** The instants PostgreSQL stores and the API serves in four-digit years: 0001-01-01 to 9999-12-31, UTC. */
const EARLIEST_MS = new Date(0).setUTCFullYear(1, 0, 1);
const LATEST_MS = new Date(0).setUTCFullYear(10000, 0, 1) - 1;

function fieldSchema(field: WritableLoadField): Joi.Schema {
  const pattern = properties[field]?.pattern;
  const type = sqlTypeOf(field);
  if (type === 'load_status') return Joi.string().valid(...LOAD_STATUSES).required();
  let schema = Joi.string()
    .min(1)
    .max(type === 'numeric' ? MAX_DECIMAL_LENGTH : MAX_TEXT_LENGTH);
  // Refused here rather than by the database, which would fail the whole import without naming the line.
  for (const { name, pattern } of UNSTORABLE) schema = schema.pattern(pattern, { name, invert: true });
  if (typeof pattern === 'string') schema = schema.pattern(new RegExp(pattern));
  if (type === 'timestamptz') {
    schema = schema.custom((text: string, helpers) => {
      const instant = parseInstant(text, { allowDate: false });
      return instant && instant.ms >= EARLIEST_MS && instant.ms <= LATEST_MS ? toSqlTimestamp(instant.ms) : helpers.error('any.invalid');
    });
  }
  return REQUIRED.has(field) ? schema.required() : schema.allow(null).default(null);
}

const EXPECTED_BY_TYPE = {
  text: 'a non-empty string or null',
  timestamptz: 'an RFC 3339 date-time with Z or an offset, from year 0001 to 9999 in UTC, or null',
  numeric: 'a decimal string such as "1234.50", or null',
  load_status: `one of ${LOAD_STATUSES.join(', ')}`,
} as const;

function expectation(field: WritableLoadField): string {
  const pattern = properties[field]?.pattern;
  const type = sqlTypeOf(field);
  if (type === 'text' && typeof pattern === 'string') return `a string matching ${pattern}, or null`;
  return REQUIRED.has(field) && type === 'text' ? 'a non-empty string' : EXPECTED_BY_TYPE[type];
}

const schema = Joi.object(Object.fromEntries(WRITABLE_LOAD_FIELDS.map((field) => [field, fieldSchema(field)]))).prefs({
  abortEarly: false,
  convert: true,
});

export type InputCheck = { ok: true; record: LoadRecord } | { ok: false; problems: string[] };

/** The row as stored, or every problem with it, one message each, naming the field. */
export function checkLoadInput(input: unknown): InputCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: ['must be a JSON object of Load fields'] };
  }
  // Unknown fields are found among the input's own keys, where JSON.parse puts a `__proto__` too (joi
  // passes over that one), and only the Load fields are given to the schema.
  const keys = Object.keys(input);
  const unknown = keys.filter((key) => !WRITABLE.has(key));
  const known = unknown.length === 0 ? input : Object.fromEntries(Object.entries(input).filter(([key]) => WRITABLE.has(key)));
  const { value, error } = schema.validate(known);
  if (!error && unknown.length === 0) return { ok: true, record: value as LoadRecord };
  const problems = new Set<string>();
  const unknownProblems = unknown.map((field) =>
    field === SERVER_KEPT_FIELD ? `${field} is kept by the server (it changes when a value changes); leave it out` : `${JSON.stringify(field)} is not a Load field`,
  );
  if (!error) return { ok: false, problems: unknownProblems };
  // A value that is too long is named for that alone: whatever else is wrong with it can wait.
  const tooLong = new Set(error.details.filter((detail) => detail.type === 'string.max').map((detail) => String(detail.path[0])));
  for (const detail of error.details) {
    const field = String(detail.path[0]);
    if (detail.type === 'any.required') {
      problems.add(`${field} is required`);
    } else if (detail.type === 'string.max') {
      problems.add(`${field} is too long: ${String(detail.context?.value).length} characters, at most ${String(detail.context?.limit)}`);
    } else if (detail.type === 'string.pattern.invert.name' && !tooLong.has(field)) {
      problems.add(`${field} holds ${String(detail.context?.name)}, which PostgreSQL cannot store (got ${quoted(detail.context?.value)})`);
    } else if (!tooLong.has(field)) {
      problems.add(`${field} must be ${expectation(field as WritableLoadField)} (got ${quoted(detail.context?.value)})`);
    }
  }
  return { ok: false, problems: [...problems, ...unknownProblems] };
}

/** A bad value as a message shows it: JSON, cut short when long. */
function quoted(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= QUOTED_LENGTH ? json : `${json.slice(0, QUOTED_LENGTH)}… (${json.length} characters)`;
}
