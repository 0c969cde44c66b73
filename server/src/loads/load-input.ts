// A load as operators import it: the API's field names, no updatedAt, a left-out nullable field is
// null. Checked field by field against the contract's own schema (types, patterns, statuses), so that
// nothing the API could not serve gets in. Written out rather than through a schema library: an import
// checks every row of files of millions, and joi took ~115 µs a row (this, a few).
import { LOAD_STATUSES, type Load } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import { SERVER_KEPT_FIELD, sqlTypeOf, WRITABLE_LOAD_FIELDS, type WritableLoadField } from './columns.js';
import { storedDateTime } from './stored-date-time.js';

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
/** Whether a text may hold one of them: one test for the text of nearly every value, which holds neither. */
const MAYBE_UNSTORABLE = /[\u0000\uD800-\uDFFF]/;

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

/** How one field is checked, derived once from the contract's schema and the column's type. */
interface FieldRule {
  field: WritableLoadField;
  required: boolean;
  type: ReturnType<typeof sqlTypeOf>;
  maxLength: number;
  pattern: RegExp | undefined;
}

const STATUSES: ReadonlySet<string> = new Set(LOAD_STATUSES);

const RULES: readonly FieldRule[] = WRITABLE_LOAD_FIELDS.map((field) => {
  const pattern = properties[field]?.pattern;
  const type = sqlTypeOf(field);
  return {
    field,
    required: REQUIRED.has(field),
    type,
    maxLength: type === 'numeric' ? MAX_DECIMAL_LENGTH : MAX_TEXT_LENGTH,
    pattern: typeof pattern === 'string' ? new RegExp(pattern) : undefined,
  };
});

/** A field's one problem. Only a bad field makes one: a good field's check allocates nothing. */
class FieldProblem {
  constructor(readonly message: string) {}
}

function mismatch(rule: FieldRule, value: unknown): FieldProblem {
  return new FieldProblem(`${rule.field} must be ${expectation(rule.field)} (got ${quoted(value)})`);
}

/** The value as stored, or the one problem of it (the first that applies: a value far too long is named for its length alone). */
function checkField(rule: FieldRule, value: unknown): string | null | FieldProblem {
  const { field } = rule;
  if (value === undefined && rule.required) return new FieldProblem(`${field} is required`);
  if (value === undefined || (value === null && !rule.required)) return null;
  if (typeof value !== 'string' || value.length === 0) return mismatch(rule, value);
  if (rule.type === 'load_status') return STATUSES.has(value) ? value : mismatch(rule, value);
  if (value.length > rule.maxLength) return new FieldProblem(`${field} is too long: ${value.length} characters, at most ${rule.maxLength}`);
  // Refused here rather than by the database, which would fail the whole import without naming the line.
  const unstorable = MAYBE_UNSTORABLE.test(value) ? UNSTORABLE.find(({ pattern }) => pattern.test(value)) : undefined;
  if (unstorable) return new FieldProblem(`${field} holds ${unstorable.name}, which PostgreSQL cannot store (got ${quoted(value)})`);
  if (rule.pattern && !rule.pattern.test(value)) return mismatch(rule, value);
  if (rule.type !== 'timestamptz') return value;
  return storedDateTime(value) ?? mismatch(rule, value);
}

export type InputCheck = { ok: true; record: LoadRecord } | { ok: false; problems: string[] };

/** The row as stored, or every problem with it, one message each, naming the field. */
export function checkLoadInput(input: unknown): InputCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: ['must be a JSON object of Load fields'] };
  }
  const given = input as Record<string, unknown>;
  const problems: string[] = [];
  const record: Record<string, string | null> = {};
  let present = 0;
  for (const rule of RULES) {
    // Own fields only: JSON.parse makes `__proto__` an own key, and an inherited value is no input.
    const has = Object.hasOwn(given, rule.field);
    if (has) present += 1;
    const checked = checkField(rule, has ? given[rule.field] : undefined);
    if (checked instanceof FieldProblem) problems.push(checked.message);
    else record[rule.field] = checked;
  }
  // Unknown fields are found among the input's own keys, `__proto__` included; looked for only when the
  // input has more keys than the Load fields it holds (counted without making a list of them).
  let keys = 0;
  for (const key in given) if (Object.hasOwn(given, key)) keys += 1;
  if (keys > present) {
    for (const key of Object.keys(given)) {
      if (WRITABLE.has(key)) continue;
      problems.push(key === SERVER_KEPT_FIELD ? `${key} is kept by the server (it changes when a value changes); leave it out` : `${JSON.stringify(key)} is not a Load field`);
    }
  }
  return problems.length === 0 ? { ok: true, record: record as LoadRecord } : { ok: false, problems };
}

/** A bad value as a message shows it: JSON, cut short when long. */
function quoted(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= QUOTED_LENGTH ? json : `${json.slice(0, QUOTED_LENGTH)}… (${json.length} characters)`;
}
