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
  NULLABLE_LOAD_FIELDS,
  TOLERATED_EXTRA_LOAD_FIELD,
  type Violation,
} from '@loadfeed/spec';

/** SPEC §2's one date-time shape, with each part in its range (a month 13 is not a date). */
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** A page's report stops after this many violations: a hostile page of a thousand bad rows stays readable. */
export const MAX_REPORTED_VIOLATIONS = 20;

type FieldCheck = (value: unknown) => string | undefined;

const statuses = new Set<unknown>(LOAD_STATUSES);
const nullable = new Set<string>(NULLABLE_LOAD_FIELDS);

function fieldCheck(field: string): FieldCheck {
  const pattern = LOAD_FIELD_PATTERNS[field as keyof typeof LOAD_FIELD_PATTERNS];
  const patterned = pattern === undefined ? undefined : new RegExp(pattern);
  const isDateTime = (DATE_TIME_LOAD_FIELDS as readonly string[]).includes(field) || field === TOLERATED_EXTRA_LOAD_FIELD;
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
  const report = (path: string, message: string) => violations.push({ path, message });
  for (let index = 0; index < rows.length && violations.length < MAX_REPORTED_VIOLATIONS; index += 1) {
    const row = rows[index];
    const at = `/data/${index}`;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      report(at, 'must be a Load object');
      continue;
    }
    const record = row as Record<string, unknown>;
    let present = 0;
    for (const field in record) {
      const check = FIELD_CHECKS.get(field);
      if (check === undefined) {
        report(`${at}/${field}`, `is not a Load field (a row may add only ${TOLERATED_EXTRA_LOAD_FIELD})`);
        continue;
      }
      if (field !== TOLERATED_EXTRA_LOAD_FIELD) present += 1;
      const problem = check(record[field]);
      if (problem !== undefined) report(`${at}/${field}`, problem);
    }
    if (present < LOAD_FIELDS.length) {
      for (const field of LOAD_FIELDS) if (!Object.hasOwn(record, field)) report(`${at}/${field}`, 'is required (a field without a value is null)');
    }
    const updatedAt = record.updatedAt;
    if (typeof updatedAt !== 'string' || !DATE_TIME.test(updatedAt)) continue;
    const ms = Date.parse(updatedAt);
    if (bounds.notBefore !== undefined && ms < bounds.notBefore) {
      report(`${at}/updatedAt`, `is before the request's updatedSince (${new Date(bounds.notBefore).toISOString()}): the server ignores updatedSince, and the sync would read the same rows again`);
    } else if (ms > bounds.notAfter) {
      report(`${at}/updatedAt`, `${updatedAt} is later than ${bounds.notAfterReason}: as a cursor it would hide every change until then`);
    }
  }
  return violations;
}

const quote = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
