// The light contract check every row passes before it reaches `upsert`: the fields and only those (plus a
// `createdAt`, SPEC §2), nulls only where the contract allows them, the closed status list, the date-time
// shape, the patterns (states, times, decimal strings), and an `updatedAt` the sweep can trust as a cursor:
// not before the request's `updatedSince`, not after what the response says is settled. A row past that
// would move the saved cursor ahead of the feed (a year-9999 `updatedAt` hides every later change), so it
// is refused with its page. It is a few comparisons per field, not the schema validator: a sync runs it on
// every row, and `@loadfeed/spec/validate` stays out of the SDK's bundle.
import {
  DATE_TIME_LOAD_FIELDS,
  LOAD_FIELD_PATTERNS,
  LOAD_FIELDS,
  LOAD_STATUSES,
  loadFieldsKeepTheirRules,
  NULLABLE_LOAD_FIELDS,
  RESPONSE_DATE_TIME,
  TOLERATED_EXTRA_LOAD_FIELD,
  type Violation,
} from '@loadfeed/spec';

/** SPEC §2's one date-time shape: its shape, as a light check does (a regular expression that also checks each part's range costs half as much again). */
const DATE_TIME = RESPONSE_DATE_TIME;

/** A page's report stops after this many violations: a hostile page of a thousand bad rows stays readable. */
export const MAX_REPORTED_VIOLATIONS = 20;

type FieldCheck = (value: unknown) => string | undefined;

const statuses = new Set<unknown>(LOAD_STATUSES);
const nullable = new Set<string>(NULLABLE_LOAD_FIELDS);
const isDateTimeField = (field: string) => (DATE_TIME_LOAD_FIELDS as readonly string[]).includes(field) || field === TOLERATED_EXTRA_LOAD_FIELD;
const patternOf = (field: string) => LOAD_FIELD_PATTERNS[field as keyof typeof LOAD_FIELD_PATTERNS];

function fieldCheck(field: string): FieldCheck {
  const pattern = patternOf(field);
  const patterned = pattern === undefined ? undefined : new RegExp(pattern);
  const isDateTime = isDateTimeField(field);
  const allowsNull = nullable.has(field);
  return (value) => {
    if (value === null) return allowsNull ? undefined : 'must not be null';
    if (typeof value !== 'string') return allowsNull ? 'must be a string or null' : 'must be a string';
    if (field === 'status') return statuses.has(value) ? undefined : `must be one of the ${LOAD_STATUSES.length} statuses (got ${quote(value)})`;
    if (field === 'loadNumber') return value === '' ? 'must not be empty: it is the row identity to upsert on' : undefined;
    if (isDateTime) return DATE_TIME.test(value) ? undefined : `must be a UTC date-time with milliseconds and Z (got ${quote(value)})`;
    if (patterned && !patterned.test(value)) return `must match ${pattern} (got ${quote(value)})`;
    return undefined;
  };
}

/** Every field a row may carry, and its check: the contract's 23 and the tolerated `createdAt`. */
const FIELD_CHECKS = new Map<string, FieldCheck>([...LOAD_FIELDS, TOLERATED_EXTRA_LOAD_FIELD].map((field) => [field, fieldCheck(field)]));

// The fast path: the same rules as FIELD_CHECKS, as a yes or no, in a function generated from the
// contract that reads each field by name. A sync runs it on every row, so it costs a small part of parsing
// the page (a loop over the field names, reading each by a computed key, cost a third as much as the
// parse); only a row it refuses is explained, field by field.
function rowIsValid(record: Record<string, unknown>): boolean {
  let keys = 0;
  for (const _key in record) keys += 1;
  const createdAt = record[TOLERATED_EXTRA_LOAD_FIELD];
  if (keys !== (createdAt === undefined ? LOAD_FIELDS.length : LOAD_FIELDS.length + 1)) return false;
  if (createdAt !== undefined && !(typeof createdAt === 'string' && DATE_TIME.test(createdAt))) return false;
  return loadFieldsKeepTheirRules(record, DATE_TIME);
}

/** What bounds a row's `updatedAt`, from the request and the response. */
export interface UpdatedAtBounds {
  /** The request's `updatedSince` as epoch ms: the server returns nothing older. */
  notBefore: number | undefined;
  /** Epoch ms no row may pass, and why, in words. */
  notAfter: number;
  notAfterReason: string;
}

/** The rows' violations, at most MAX_REPORTED_VIOLATIONS of them. */
export function rowViolations(rows: readonly unknown[], bounds: UpdatedAtBounds): Violation[] {
  const violations: Violation[] = [];
  // Every valid updatedAt has SPEC's one shape, so comparing it as text with a bound in that shape is
  // comparing instants, without parsing a date per row.
  const notBefore = bounds.notBefore === undefined ? undefined : new Date(bounds.notBefore).toISOString();
  const notAfter = new Date(bounds.notAfter).toISOString();
  for (let index = 0; index < rows.length && violations.length < MAX_REPORTED_VIOLATIONS; index += 1) {
    const row = rows[index];
    const at = `/data/${index}`;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      violations.push({ path: at, message: 'must be a Load object' });
      continue;
    }
    const record = row as Record<string, unknown>;
    const updatedAt = record.updatedAt;
    if (!rowIsValid(record)) {
      explain(record, at, violations);
      if (typeof updatedAt !== 'string' || !DATE_TIME.test(updatedAt)) continue;
    }
    // The shape lets a 30 February or an hour 25 through; the cursor must be an instant the sync can compare.
    if (Number.isNaN(Date.parse(updatedAt as string))) {
      violations.push({ path: `${at}/updatedAt`, message: `${updatedAt as string} is not a real instant: it is the sync cursor` });
      continue;
    }
    if (notBefore !== undefined && (updatedAt as string) < notBefore) {
      violations.push({
        path: `${at}/updatedAt`,
        message: `is before the request's updatedSince (${notBefore}): the server ignores updatedSince, and the sync would read the same rows again`,
      });
    } else if ((updatedAt as string) > notAfter) {
      violations.push({ path: `${at}/updatedAt`, message: `${updatedAt} is later than ${bounds.notAfterReason}: as a cursor it would hide every change until then` });
    }
  }
  return violations.slice(0, MAX_REPORTED_VIOLATIONS);
}

/** Every violation of a row the fast path refused, field by field. */
function explain(record: Record<string, unknown>, at: string, violations: Violation[]): void {
  for (const field in record) {
    const check = FIELD_CHECKS.get(field);
    if (check === undefined) {
      violations.push({ path: `${at}/${field}`, message: `is not a Load field (a row may add only ${TOLERATED_EXTRA_LOAD_FIELD})` });
      continue;
    }
    const problem = check(record[field]);
    if (problem !== undefined) violations.push({ path: `${at}/${field}`, message: problem });
  }
  for (const field of LOAD_FIELDS) if (!Object.hasOwn(record, field)) violations.push({ path: `${at}/${field}`, message: 'is required (a field without a value is null)' });
}

const quote = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
