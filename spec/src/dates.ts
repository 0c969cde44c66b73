// Dates and date-times as the API accepts them: an ISO 8601 date (`YYYY-MM-DD`) or an RFC 3339
// date-time, which must carry `Z` or an offset (DECISIONS.md). Parsed here, exactly, rather than by
// Date.parse, which accepts many other shapes and reads a date-time without offset as local time.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAY_MS = 86_400_000;

/** The instants PostgreSQL and JavaScript both represent: years 0001 to 9999. */
const EARLIEST_MS = utc(1, 1, 1);
const LATEST_MS = utc(9999, 12, 31) + DAY_MS - 1;

export interface Instant {
  /** Milliseconds since the epoch, rounded down. */
  ms: number;
  /** Whether the text had digits below a millisecond, so that `ms` is below the true instant. */
  belowMs: boolean;
  /** Whether the text was a date alone (that day at 00:00Z). */
  dateOnly: boolean;
}

function utc(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  const date = new Date(utc(year, month, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A date-time (or, with `allowDate`, a date alone); undefined when the text is neither. */
export function parseInstant(text: string, { allowDate }: { allowDate: boolean }): Instant | undefined {
  const date = allowDate ? DATE.exec(text) : null;
  if (date) {
    const [year, month, day] = date.slice(1, 4).map(Number) as [number, number, number];
    return isCalendarDay(year, month, day) ? { ms: utc(year, month, day), belowMs: false, dateOnly: true } : undefined;
  }
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = match[7] ?? '';
  const [sign, offsetHours, offsetMinutes] = [match[8], Number(match[9] ?? 0), Number(match[10] ?? 0)];
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) {
    return undefined;
  }
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms = utc(year, month, day) + ((hour * 60 + minute) * 60 + second) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3)) - offsetMs;
  return { ms, belowMs: /[1-9]/.test(fraction.slice(3)), dateOnly: false };
}

function clamp(ms: number): number {
  return Math.min(LATEST_MS, Math.max(EARLIEST_MS, ms));
}

/** The earliest millisecond a lower bound admits (`>=`): a date alone is that day at 00:00Z. */
export function lowerBoundMs(instant: Instant): number {
  return clamp(instant.belowMs ? instant.ms + 1 : instant.ms);
}

/** The latest millisecond an upper bound admits (`<=`): a date alone covers that whole day. */
export function upperBoundMs(instant: Instant): number {
  return clamp(instant.dateOnly ? instant.ms + DAY_MS - 1 : instant.ms);
}

/** An instant as SQL parameters carry it, in a shape PostgreSQL reads exactly for every year 0001-9999. */
export function toSqlTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
