import type { Load } from '@loadfeed/spec';
import { TEST_PAGE_SIZE_MAX } from '../../src/dataset.js';
import type { Exchange } from '../../src/evidence.js';
import { need, pageOf, required, verify, type Kit } from '../../src/kit.js';
import { isoAt, list, time } from '../../src/rows.js';

type DateField = 'scheduledPickupDate' | 'scheduledDeliveryDate';

/** The distinct values of a date field the key sees, in time order. */
async function datesOf(kit: Kit, field: DateField): Promise<number[]> {
  const sample = await kit.sample();
  const times = sample.rows.map((row) => time(row[field])).filter((value): value is number => value !== undefined);
  return [...new Set(times)].sort((a, b) => a - b);
}

function verifyInside(exchange: Exchange, field: DateField, from: number, to: number): void {
  const outside = pageOf(exchange).data.filter((row: Load) => {
    const value = time(row[field]);
    return value === undefined || value < from || value > to;
  });
  verify(outside.length === 0, `a row's ${field} lies outside the range asked for`, {
    expected: `${field} within [${isoAt(from)}, ${isoAt(to)}]`,
    actual: list(outside.map((row) => `${row.loadNumber}: ${row[field]}`)),
    exchanges: [exchange],
  });
}

/** The middle half of the distinct dates seen, at least two of them: its bounds and the dates inside. */
async function middleRange(kit: Kit, field: DateField): Promise<{ from: number; to: number; inside: number[] }> {
  const dates = await datesOf(kit, field);
  need(dates.length >= 2, `the key sees fewer than 2 distinct values of ${field}`, 'rows');
  const [first, last] = [Math.floor(dates.length / 4), Math.floor((dates.length * 3) / 4)];
  return { from: dates[first]!, to: dates[last]!, inside: dates.slice(first, last + 1) };
}

function rangeQuery([fromParameter, toParameter]: readonly [string, string], from: number, to: number) {
  return { [fromParameter]: isoAt(from), [toParameter]: isoAt(to), pageSize: TEST_PAGE_SIZE_MAX };
}

/** Asks for the middle half of the dates seen: every row must lie inside, and none seen inside be left out. */
async function verifyMiddleRange(kit: Kit, field: DateField, parameters: readonly [string, string]): Promise<void> {
  const { from, to } = await middleRange(kit, field);
  const exchange = await kit.list('primary', rangeQuery(parameters, from, to));
  verifyInside(exchange, field, from, to);
  const sample = await kit.sample();
  const seenInside = sample.rows.filter((row) => {
    const value = time(row[field]);
    return value !== undefined && value >= from && value <= to;
  }).length;
  const { totalCount } = pageOf(exchange);
  verify(sample.complete ? totalCount === seenInside : totalCount >= 1, `the ${field} range leaves out rows inside it`, {
    expected: sample.complete ? `totalCount ${seenInside}, the rows seen inside` : 'at least 1 row',
    actual: `totalCount ${totalCount}`,
    exchanges: [exchange, sample.exchange],
  });
}

const PICKUP = ['pickupFrom', 'pickupTo'] as const;

required('pickupFrom and pickupTo return only rows whose scheduledPickupDate lies inside the range, and all of them', '§4', ({ kit }) =>
  verifyMiddleRange(kit, 'scheduledPickupDate', PICKUP),
);

required('deliveryFrom and deliveryTo return only rows whose scheduledDeliveryDate lies inside the range, and all of them', '§4', ({ kit }) =>
  verifyMiddleRange(kit, 'scheduledDeliveryDate', ['deliveryFrom', 'deliveryTo']),
);

required('a pickup range split in two adds up to the whole range', '§4', async ({ kit }) => {
  // The whole is the middle range the check above asked for, so one response serves both.
  const { from, to, inside } = await middleRange(kit, 'scheduledPickupDate');
  const middle = inside[Math.ceil((inside.length - 1) / 2)]!;
  const whole = await kit.list('primary', rangeQuery(PICKUP, from, to));
  const early = await kit.list('primary', rangeQuery(PICKUP, from, middle - 1));
  const late = await kit.list('primary', rangeQuery(PICKUP, middle, to));
  const [all, first, second] = [whole, early, late].map((exchange) => pageOf(exchange).totalCount);
  verify(first! + second! === all && first! > 0 && second! > 0, 'the two halves of a pickup range do not add up to it', {
    expected: `${all} = rows before ${isoAt(middle)} + rows from it on, each at least 1`,
    actual: `${first} + ${second}`,
    exchanges: [whole, early, late],
  });
  verifyInside(early, 'scheduledPickupDate', from, middle - 1);
  verifyInside(late, 'scheduledPickupDate', middle, to);
});

required('filters combine with AND: every row satisfies status and the pickup range together', '§4', async ({ kit }) => {
  const sample = await kit.sample();
  const pivot = sample.rows.find((row) => time(row.scheduledPickupDate) !== undefined);
  need(pivot !== undefined, 'the key sees no row with a pickup date', 'rows');
  const from = time(pivot.scheduledPickupDate)!;
  const exchange = await kit.list('primary', { status: [pivot.status], pickupFrom: isoAt(from), pageSize: TEST_PAGE_SIZE_MAX });
  const page = pageOf(exchange);
  const wrong = page.data.filter((row) => row.status !== pivot.status || (time(row.scheduledPickupDate) ?? -Infinity) < from);
  verify(wrong.length === 0 && page.data.some((row) => row.loadNumber === pivot.loadNumber), 'a combined filter is not an AND', {
    expected: `status ${pivot.status} and scheduledPickupDate >= ${pivot.scheduledPickupDate}, ${pivot.loadNumber} among them`,
    actual: `offending: ${list(wrong.map((row) => `${row.loadNumber}: ${row.status} ${row.scheduledPickupDate}`))}`,
    exchanges: [exchange],
  });
});
