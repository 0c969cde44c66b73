// Pickup-date ranges as the feed is asked to count them. Bounds are whole UTC days sent as dates (a date
// as pickupTo covers that whole day) or full millisecond date-times (pickupTo is inclusive, so the
// range's exclusive end less one millisecond): no other shape, so that the server and the copy draw the
// same line. A range is split at a day boundary while it spans two days or more, then at milliseconds.
import type { ListLoadsParams } from '../client.js';
import type { PickupRange } from './copy.js';

export const DAY_MS = 86_400_000;

const isDay = (ms: number) => ms % DAY_MS === 0;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dateTimeOf = (ms: number) => new Date(ms).toISOString();

/** The range as pickupFrom/pickupTo parameters. */
export function rangeParams(range: PickupRange): Pick<ListLoadsParams, 'pickupFrom' | 'pickupTo'> {
  const days = isDay(range.from) && (range.before === undefined || isDay(range.before));
  const params: Pick<ListLoadsParams, 'pickupFrom' | 'pickupTo'> = { pickupFrom: days ? dateOf(range.from) : dateTimeOf(range.from) };
  if (range.before !== undefined) params.pickupTo = days ? dateOf(range.before - DAY_MS) : dateTimeOf(range.before - 1);
  return params;
}

/**
 * Two halves of `range`, or undefined when it cannot be split (a single millisecond). An open range is
 * split as if it ended the day after `latest` (the copy's latest pickup), its upper half staying open.
 */
export function splitRange(range: PickupRange, latest: number | undefined): [PickupRange, PickupRange] | undefined {
  const end = range.before ?? Math.max(range.from + DAY_MS, Math.floor((latest ?? range.from) / DAY_MS) * DAY_MS + DAY_MS);
  if (end - range.from < 2) return undefined;
  let middle = range.from + Math.floor((end - range.from) / 2);
  if (isDay(range.from) && isDay(end) && end - range.from >= 2 * DAY_MS) middle = Math.round(middle / DAY_MS) * DAY_MS;
  return [
    { from: range.from, before: middle },
    { from: middle, before: range.before },
  ];
}
