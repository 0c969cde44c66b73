import type { Load } from '@loadfeed/spec';
import { isPage } from '../../src/dataset.js';
import { pageOf, required, verify } from '../../src/kit.js';
import { list, loadNumbers } from '../../src/rows.js';

required('a walk at a small page size returns no loadNumber twice', '§4', async ({ kit }) => {
  const walk = await kit.walk();
  const seen = new Set<string>();
  const repeated = loadNumbers(walk.rows).filter((loadNumber) => seen.size === seen.add(loadNumber).size);
  verify(repeated.length === 0, 'a row appears on two pages of one walk', { expected: 'each loadNumber once', actual: `repeated: ${list(repeated)}`, exchanges: walk.pages });
});

required("the rows of a walk add up to the first page's totalCount", '§2, §4', async ({ kit }) => {
  const walk = await kit.walk();
  const totalCount = pageOf(walk.pages[0]!).totalCount;
  verify(walk.rows.length === totalCount, 'the pages of a walk do not add up to totalCount', {
    expected: `${totalCount} rows over ${walk.pages.length} pages of ${walk.pageSize}`,
    actual: `${walk.rows.length} rows`,
    exchanges: walk.pages,
  });
});

required('totalCount is the same on every page of a walk', '§2', async ({ kit }) => {
  const walk = await kit.walk();
  const counts = walk.pages.map((exchange) => pageOf(exchange).totalCount);
  verify(new Set(counts).size === 1, 'totalCount changes between pages of one walk', { expected: `${counts[0]} on every page`, actual: list(counts), exchanges: walk.pages });
});

required('hasMore is true on every page but the last, and false on the last', '§2', async ({ kit }) => {
  const walk = await kit.walk();
  walk.pages.forEach((exchange, index) => {
    const last = index === walk.pages.length - 1;
    verify(pageOf(exchange).hasMore === !last, `hasMore is wrong on page ${index + 1} of ${walk.pages.length}`, {
      expected: `hasMore ${!last}`,
      actual: `hasMore ${pageOf(exchange).hasMore}`,
      exchanges: [exchange],
    });
  });
});

required('rows come in ascending updatedAt order within and across pages', '§4', async ({ kit }) => {
  const walk = await kit.walk();
  const index = walk.rows.findIndex((row, i) => i > 0 && Date.parse(row.updatedAt) < Date.parse(walk.rows[i - 1]!.updatedAt));
  const at = (row: Load | undefined) => `${row?.loadNumber} updatedAt ${row?.updatedAt}`;
  verify(index === -1, 'a row comes before an older one', {
    expected: 'updatedAt never decreases along the walk',
    actual: `${at(walk.rows[index - 1])} then ${at(walk.rows[index])}`,
    exchanges: walk.pages,
  });
});

required('rows come in the same order at every page size: a walk at a small page size matches one page holding the whole scope', '§4', async ({ kit }) => {
  const walk = await kit.walk();
  const walked = loadNumbers(walk.rows);
  const whole = loadNumbers(walk.scope.reference);
  const at = walked.findIndex((loadNumber, i) => loadNumber !== whole[i]);
  // Tied updatedAt values are where an unstable order hides: the internal id must decide them alike at every size.
  verify(at === -1 && walked.length === whole.length, `the order of ${walk.scope.how} depends on the page size`, {
    expected: `at position ${at + 1}: ${whole[at]} (as one page of ${whole.length} rows orders them)`,
    actual: `${walked[at]} (walking ${walk.pageSize} rows a page); walked ${list(walked, 12)}`,
    exchanges: [walk.scope.referenceExchange, ...walk.pages],
  });
});

required('a page fetched again has the same boundary: the same rows in the same order', '§4', async ({ kit }) => {
  const walk = await kit.walk();
  const first = walk.pages[1] ?? walk.pages[0]!;
  const again = await kit.list('primary', first.target.split('?')[1], { fresh: true });
  const before = loadNumbers(pageOf(first).data);
  const after = loadNumbers(pageOf(again).data);
  verify(before.join() === after.join(), 'a page boundary moved on an unchanged dataset', { expected: list(before), actual: list(after), exchanges: [first, again] });
});

required('the page after the last one is empty with hasMore false', '§2, §4', async ({ kit }) => {
  const walk = await kit.walk();
  const query = new URLSearchParams(walk.pages[0]!.target.split('?')[1]);
  query.set('page', String(walk.pages.length + 1));
  const past = await kit.list('primary', query.toString());
  verify(past.status === 200 && isPage(past.body) && past.body.data.length === 0 && !past.body.hasMore, 'a page past the end is not an empty last page', {
    expected: '200, data [], hasMore false',
    actual: isPage(past.body) ? `${past.status}, ${past.body.data.length} rows, hasMore ${past.body.hasMore}` : `${past.status}`,
    exchanges: [past],
  });
});
