import type { Load } from '@loadfeed/spec';
import { isPage, TEST_PAGE_SIZE_MAX } from '../../src/dataset.js';
import { need, pageOf, required, verify, warning, type Kit } from '../../src/kit.js';
import { isoAt, list, time, windowStart } from '../../src/rows.js';

const YEAR_MS = 365 * 86_400_000;

/** Every row of every page the run received for the run's own keys. */
async function rowsSeen(kit: Kit): Promise<{ rows: Load[]; pages: number }> {
  await kit.sample();
  const pages = kit.exchanges.filter((exchange) => exchange.listLoads && exchange.status === 200 && isPage(exchange.body));
  return { rows: pages.flatMap((exchange) => (isPage(exchange.body) ? exchange.body.data : [])), pages: pages.length };
}

required('every row the key sees is scheduled to pick up within the last 12 months', '§1, §8', async ({ kit }) => {
  const { rows, pages } = await rowsSeen(kit);
  need(rows.length > 0, 'no rows seen', 'rows');
  const start = windowStart(Date.now());
  const old = rows.filter((row) => {
    const pickup = time(row.scheduledPickupDate);
    return pickup !== undefined && pickup < start;
  });
  verify(old.length === 0, 'a row outside the 12-month window is served', {
    expected: `scheduledPickupDate on or after ${isoAt(start)} in all ${rows.length} rows of ${pages} pages`,
    actual: list(old.map((row) => `${row.loadNumber}: ${row.scheduledPickupDate}`)),
    exchanges: kit.exchanges.filter((exchange) => isPage(exchange.body) && exchange.body.data.some((row) => old.includes(row))),
  });
});

warning('no row without a scheduled pickup date is served', 'DECISIONS: Dates and the window; SPEC §1', async ({ kit }) => {
  const { rows } = await rowsSeen(kit);
  const undated = rows.filter((row) => row.scheduledPickupDate === null);
  verify(undated.length === 0, 'a row without a pickup date is in the feed', { expected: 'none', actual: list(undated.map((row) => row.loadNumber)) });
});

required('a pickupFrom far in the past does not widen the 12-month window', '§1, §4', async ({ kit }) => {
  const sample = await kit.sample();
  const exchange = await kit.list('primary', { pickupFrom: isoAt(Date.now() - 5 * YEAR_MS), pageSize: TEST_PAGE_SIZE_MAX });
  const page = pageOf(exchange);
  verify(page.totalCount === sample.totalCount, 'a pickupFrom five years back returns more rows than no filter', {
    expected: `totalCount ${sample.totalCount}, as without a filter`,
    actual: `totalCount ${page.totalCount}`,
    exchanges: [exchange, sample.exchange],
  });
});
