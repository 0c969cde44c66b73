// A date-time of an imported row as it is stored: in UTC with milliseconds and Z, the shape the API
// serves. Most imports are the API's own output (or a copy of it), already in that shape; such a text is
// checked digit by digit and kept as it is, which is what parsing it and printing it again would give.
// Any other text goes the long way (parseInstant, then printed in UTC). Parsing and printing every
// date-time was most of what checking a row cost (six per row: ~60% of ~12 µs).
import { parseInstant, toSqlTimestamp } from '@loadfeed/spec/query';

/** The instants PostgreSQL stores and the API serves in four-digit years: 0001-01-01 to 9999-12-31, UTC. */
const EARLIEST_MS = new Date(0).setUTCFullYear(1, 0, 1);
const LATEST_MS = new Date(0).setUTCFullYear(10000, 0, 1) - 1;

const ZERO = 0x30;
const DIGIT = -1;
/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, position by position: the separator's character code, or DIGIT. */
const CANONICAL_SHAPE: readonly number[] = [...'0000-00-00T00:00:00.000Z'].map((character) => (character === '0' ? DIGIT : character.charCodeAt(0)));
const CANONICAL_LENGTH = CANONICAL_SHAPE.length;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** The number written at [start, end) of `text`, whose characters are known to be digits. */
function digitsAt(text: string, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index += 1) value = value * 10 + (text.charCodeAt(index) - ZERO);
  return value;
}

/** Whether `text` is a valid instant written exactly as it is stored: `YYYY-MM-DDTHH:MM:SS.mmmZ`, years 0001-9999. */
export function isStoredDateTime(text: string): boolean {
  if (text.length !== CANONICAL_LENGTH) return false;
  for (let index = 0; index < CANONICAL_LENGTH; index += 1) {
    const code = text.charCodeAt(index);
    const expected = CANONICAL_SHAPE[index]!;
    if (expected === DIGIT ? code < ZERO || code > ZERO + 9 : code !== expected) return false;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day <= daysInMonth && digitsAt(text, 11, 13) <= 23 && digitsAt(text, 14, 16) <= 59 && digitsAt(text, 17, 19) <= 59;
}

/** An RFC 3339 date-time with Z or an offset as stored (UTC, milliseconds, Z), or undefined when it is none or outside 0001-9999. */
export function storedDateTime(text: string): string | undefined {
  if (isStoredDateTime(text)) return text;
  const instant = parseInstant(text, { allowDate: false });
  return instant && instant.ms >= EARLIEST_MS && instant.ms <= LATEST_MS ? toSqlTimestamp(instant.ms) : undefined;
}
