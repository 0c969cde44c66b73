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

function fieldSchema(field: WritableLoadField): Joi.Schema {
  const pattern = properties[field]?.pattern;
  const type = sqlTypeOf(field);
  if (type === 'load_status') return Joi.string().valid(...LOAD_STATUSES).required();
  // PostgreSQL's text cannot hold NUL, so it is refused here rather than by the database.
  let schema: Joi.Schema = Joi.string()
    .min(1)
    .max(type === 'numeric' ? MAX_DECIMAL_LENGTH : MAX_TEXT_LENGTH)
    .pattern(/\u0000/, { invert: true });
  if (typeof pattern === 'string') schema = (schema as Joi.StringSchema).pattern(new RegExp(pattern));
  if (type === 'timestamptz') {
    schema = (schema as Joi.StringSchema).custom((text: string, helpers) => {
      const instant = parseInstant(text, { allowDate: false });
      return instant ? toSqlTimestamp(instant.ms) : helpers.error('any.invalid');
    });
  }
  return REQUIRED.has(field) ? schema.required() : schema.allow(null).default(null);
}

const EXPECTED_BY_TYPE = {
  text: 'a non-empty string or null',
  timestamptz: 'an RFC 3339 date-time with Z or an offset, or null',
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
  const { value, error } = schema.validate(input);
  if (!error) return { ok: true, record: value as LoadRecord };
  const problems = new Set<string>();
  // A value that is too long is named for that alone: whatever else is wrong with it can wait.
  const tooLong = new Set(error.details.filter((detail) => detail.type === 'string.max').map((detail) => String(detail.path[0])));
  for (const detail of error.details) {
    const field = String(detail.path[0]);
    if (detail.type === 'object.unknown') {
      problems.add(
        field === SERVER_KEPT_FIELD
          ? `${field} is kept by the server (it changes when a value changes); leave it out`
          : `${JSON.stringify(field)} is not a Load field`,
      );
    } else if (detail.type === 'any.required') {
      problems.add(`${field} is required`);
    } else if (detail.type === 'string.max') {
      problems.add(`${field} is too long: ${String(detail.context?.value).length} characters, at most ${String(detail.context?.limit)}`);
    } else if (!tooLong.has(field)) {
      problems.add(`${field} must be ${expectation(field as WritableLoadField)} (got ${quoted(detail.context?.value)})`);
    }
  }
  return { ok: false, problems: [...problems] };
}

/** A bad value as a message shows it: JSON, cut short when long. */
function quoted(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= QUOTED_LENGTH ? json : `${json.slice(0, QUOTED_LENGTH)}… (${json.length} characters)`;
}
