import { LOAD_STATUSES, type LoadStatus } from '@loadfeed/spec';
import { TEST_PAGE_SIZE_MAX } from '../../src/dataset.js';
import { need, pageOf, required, verify, type Kit } from '../../src/kit.js';
import { byFrequency, list } from '../../src/rows.js';

/** The two statuses the key sees most; the second is one it does not see when it sees only one. */
async function twoStatuses(kit: Kit): Promise<[LoadStatus, LoadStatus]> {
  const sample = await kit.sample();
  const seen = byFrequency(sample.rows, (row) => row.status);
  need(seen.length > 0, 'the key sees no rows, so no status to filter on', 'rows');
  return [seen[0]!, seen[1] ?? LOAD_STATUSES.find((status) => status !== seen[0])!];
}

required('a status filter returns only rows with that status', '§4', async ({ kit }) => {
  const [status] = await twoStatuses(kit);
  const exchange = await kit.list('primary', { status: [status], pageSize: TEST_PAGE_SIZE_MAX });
  const page = pageOf(exchange);
  const others = page.data.filter((row) => row.status !== status);
  verify(others.length === 0 && page.totalCount > 0, `status=${status} returns other statuses or nothing`, {
    expected: `only ${status}, at least the one row seen`,
    actual: `totalCount ${page.totalCount}; other statuses: ${list(others.map((row) => `${row.loadNumber}: ${row.status}`))}`,
    exchanges: [exchange],
  });
  const sample = await kit.sample();
  if (sample.complete) {
    const expected = sample.rows.filter((row) => row.status === status).length;
    verify(page.totalCount === expected, `status=${status} does not count the rows with that status`, {
      expected: `totalCount ${expected} (rows with status ${status} among all ${sample.totalCount})`,
      actual: `totalCount ${page.totalCount}`,
      exchanges: [exchange, sample.exchange],
    });
  }
});

required('several status values are OR-combined: the count for A or B is the count for A plus the count for B', '§4', async ({ kit }) => {
  const [a, b] = await twoStatuses(kit);
  const onlyA = await kit.list('primary', { status: [a], pageSize: TEST_PAGE_SIZE_MAX });
  const onlyB = await kit.list('primary', { status: [b], pageSize: TEST_PAGE_SIZE_MAX });
  const either = await kit.list('primary', { status: [a, b], pageSize: TEST_PAGE_SIZE_MAX });
  const [countA, countB, countEither] = [onlyA, onlyB, either].map((exchange) => pageOf(exchange).totalCount);
  verify(countEither === countA! + countB!, `status=${a}&status=${b} is not the union of both`, {
    expected: `totalCount ${countA} + ${countB} = ${countA! + countB!}`,
    actual: `totalCount ${countEither}`,
    exchanges: [either, onlyA, onlyB],
  });
  const strangers = pageOf(either).data.filter((row) => row.status !== a && row.status !== b);
  verify(strangers.length === 0, 'the union holds rows of other statuses', { expected: `${a} or ${b}`, actual: list(strangers.map((row) => row.status)), exchanges: [either] });
});
