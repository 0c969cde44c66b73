import type { Load } from '@loadfeed/spec';
import { need, pageOf, required, verify, warning, type Kit } from '../../src/kit.js';
import { dayOf, list } from '../../src/rows.js';

const DAY_MS = 86_400_000;

/** A row in the middle of the updatedAt order, so that some rows come before it; none when all share one. */
async function pivot(kit: Kit): Promise<{ row: Load; earlier: number }> {
  const sample = await kit.sample();
  const distinct = [...new Set(sample.rows.map((row) => row.updatedAt))].sort();
  need(distinct.length >= 2, `every row the sample holds shares one updatedAt (${distinct[0] ?? 'no rows'})`);
  const cursor = distinct[Math.floor(distinct.length / 2)]!;
  const row = sample.rows.find((candidate) => candidate.updatedAt === cursor)!;
  return { row, earlier: sample.rows.filter((candidate) => candidate.updatedAt < cursor).length };
}

required("updatedSince is inclusive: a delta from a row's updatedAt contains that row", '§4', async ({ kit }) => {
  const { row } = await pivot(kit);
  const exchange = await kit.list('primary', { updatedSince: row.updatedAt, pageSize: 100 });
  const page = pageOf(exchange);
  const found = page.data.some((candidate) => candidate.loadNumber === row.loadNumber);
  need(found || !page.hasMore || page.data.at(-1)?.updatedAt !== row.updatedAt, 'more than a page of rows share the pivot updatedAt');
  verify(found, 'a delta from a seen updatedAt misses that row', {
    expected: `${row.loadNumber} (updatedAt ${row.updatedAt}) in the delta`,
    actual: `${page.totalCount} rows without it`,
    exchanges: [exchange],
  });
});

required('a delta returns only rows updated at or after updatedSince', '§4', async ({ kit }) => {
  const { row, earlier } = await pivot(kit);
  const exchange = await kit.list('primary', { updatedSince: row.updatedAt, pageSize: 100 });
  const page = pageOf(exchange);
  const old = page.data.filter((candidate) => candidate.updatedAt < row.updatedAt);
  verify(old.length === 0, 'a delta returns rows older than its updatedSince', {
    expected: `updatedAt >= ${row.updatedAt} (${earlier} seen rows are older)`,
    actual: list(old.map((candidate) => `${candidate.loadNumber}: ${candidate.updatedAt}`)),
    exchanges: [exchange],
  });
  const sample = await kit.sample();
  verify(page.totalCount <= sample.totalCount - earlier, 'a delta counts rows older than its updatedSince', {
    expected: `totalCount at most ${sample.totalCount - earlier}`,
    actual: `totalCount ${page.totalCount}`,
    exchanges: [exchange, sample.exchange],
  });
});

required('updatedSince accepts a date alone (YYYY-MM-DD)', '§4', async ({ kit }) => {
  const { row } = await pivot(kit);
  const day = dayOf(row.updatedAt);
  const exchange = await kit.list('primary', { updatedSince: day, pageSize: 100 });
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
  const { row } = await pivot(kit);
  const day = dayOf(row.updatedAt);
  const exchange = await kit.list('primary', { updatedSince: day, pageSize: 100 });
  const sample = await kit.sample();
  need(sample.complete, 'the sample does not hold every row, so the expected count is unknown');
  const expected = sample.rows.filter((candidate) => Date.parse(candidate.updatedAt) >= Date.parse(`${day}T00:00:00.000Z`)).length;
  verify(pageOf(exchange).totalCount === expected, `updatedSince=${day} does not start at ${day}T00:00:00.000Z`, {
    expected: `totalCount ${expected}`,
    actual: `totalCount ${pageOf(exchange).totalCount}`,
    exchanges: [exchange, sample.exchange],
  });
});
