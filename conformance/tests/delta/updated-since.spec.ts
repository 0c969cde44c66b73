import type { Load } from '@loadfeed/spec';
import { TEST_PAGE_SIZE_MAX } from '../../src/dataset.js';
import { choosePivot, type Pivot } from '../../src/instants.js';
import { need, pageOf, required, verify, warning, type Kit } from '../../src/kit.js';
import { dayOf, isoAt, list } from '../../src/rows.js';

const DAY_MS = 86_400_000;

/** The instant the delta checks start from, with the rows at, after and before it known exactly (src/instants.ts). */
async function pivot(kit: Kit): Promise<Pivot> {
  const sample = await kit.sample();
  const found = choosePivot({ sample, tail: await kit.tail() });
  need(found !== undefined, `the first and last pages do not tell how many rows share any one updatedAt (${sample.totalCount} rows)`, 'rows');
  return found;
}

const stamped = (rows: readonly Load[]) => list(rows.map((row) => `${row.loadNumber}: ${row.updatedAt}`));

required('updatedSince is inclusive: a delta from an updatedAt holds every row stamped at that instant, tied rows included', '§4', async ({ kit }) => {
  const { updatedAt, atOrAfter, after } = await pivot(kit);
  const exchange = await kit.list('primary', { updatedSince: updatedAt, pageSize: TEST_PAGE_SIZE_MAX });
  const page = pageOf(exchange);
  const tied = atOrAfter - after;
  const tiedServed = page.data.filter((row) => row.updatedAt === updatedAt).length;
  // Rows written since the first and last pages were read only add to the count, never take from it.
  verify(page.totalCount >= atOrAfter && tiedServed === Math.min(tied, page.data.length), `updatedSince=${updatedAt} leaves out rows stamped at or after it`, {
    expected: `totalCount at least ${atOrAfter}: the ${tied} rows stamped at ${updatedAt} and the ${after} after; the page starting with ${Math.min(tied, page.data.length)} rows at ${updatedAt}`,
    actual: `totalCount ${page.totalCount}; ${tiedServed} rows at ${updatedAt} on the page`,
    exchanges: [exchange],
  });
});

required('a delta returns only rows updated at or after updatedSince; one millisecond later leaves out the rows stamped at it', '§4', async ({ kit }) => {
  const { updatedAt, atOrAfter, after, before } = await pivot(kit);
  const exchange = await kit.list('primary', { updatedSince: updatedAt, pageSize: TEST_PAGE_SIZE_MAX });
  const atCount = pageOf(exchange).totalCount;
  const old = pageOf(exchange).data.filter((row) => Date.parse(row.updatedAt) < Date.parse(updatedAt));
  verify(old.length === 0, 'a delta returns rows older than its updatedSince', {
    expected: `updatedAt >= ${updatedAt} (${before} rows are older)`,
    actual: stamped(old),
    exchanges: [exchange],
  });
  const later = isoAt(Date.parse(updatedAt) + 1);
  const next = await kit.list('primary', { updatedSince: later, pageSize: TEST_PAGE_SIZE_MAX });
  const page = pageOf(next);
  const notAfter = page.data.filter((row) => Date.parse(row.updatedAt) <= Date.parse(updatedAt));
  // From the count at the instant, the tied group comes off; rows written meanwhile may only add.
  const tied = atOrAfter - after;
  verify(notAfter.length === 0 && page.totalCount >= after && page.totalCount <= atCount - tied, `updatedSince=${later} still holds rows stamped at ${updatedAt} or counts them`, {
    expected: `totalCount from ${after} to ${atCount - tied} (${atCount} at ${updatedAt} less its ${tied} tied rows), no row stamped at or before ${updatedAt}`,
    actual: `totalCount ${page.totalCount}; at or before it: ${stamped(notAfter)}`,
    exchanges: [next, exchange],
  });
});

required('updatedSince accepts a date alone (YYYY-MM-DD)', '§4', async ({ kit }) => {
  const { updatedAt } = await pivot(kit);
  const day = dayOf(updatedAt);
  const exchange = await kit.list('primary', { updatedSince: day, pageSize: TEST_PAGE_SIZE_MAX });
  const page = pageOf(exchange);
  // Whatever zone a deployment reads the date in, nothing a day before it may come back.
  const early = page.data.filter((candidate) => Date.parse(candidate.updatedAt) < Date.parse(day) - DAY_MS);
  verify(early.length === 0, 'a date-only updatedSince returns rows from before that day', {
    expected: `updatedAt on or after ${day}`,
    actual: list(early.map((candidate) => `${candidate.loadNumber}: ${candidate.updatedAt}`)),
    exchanges: [exchange],
  });
});

warning('a date-only updatedSince means that day at 00:00Z', 'DECISIONS: Dates and the window; SPEC §4', async ({ kit }) => {
  const { updatedAt } = await pivot(kit);
  const day = dayOf(updatedAt);
  const exchange = await kit.list('primary', { updatedSince: day, pageSize: TEST_PAGE_SIZE_MAX });
  const sample = await kit.sample();
  need(sample.complete, 'the sample does not hold every row, so the expected count is unknown', 'rows');
  const expected = sample.rows.filter((candidate) => Date.parse(candidate.updatedAt) >= Date.parse(`${day}T00:00:00.000Z`)).length;
  verify(pageOf(exchange).totalCount === expected, `updatedSince=${day} does not start at ${day}T00:00:00.000Z`, {
    expected: `totalCount ${expected}`,
    actual: `totalCount ${pageOf(exchange).totalCount}`,
    exchanges: [exchange, sample.exchange],
  });
});
