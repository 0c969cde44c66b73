import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING } from '@loadfeed/spec';
import { pageOf, required, verify } from '../../src/kit.js';

required(`without page and pageSize the envelope echoes page ${DEFAULT_PAGE} and pageSize ${DEFAULT_PAGE_SIZE}`, '§4', async ({ kit }) => {
  const exchange = await kit.list('primary');
  const page = pageOf(exchange);
  verify(page.page === DEFAULT_PAGE && page.pageSize === DEFAULT_PAGE_SIZE, 'the defaults are not echoed', {
    expected: `page ${DEFAULT_PAGE}, pageSize ${DEFAULT_PAGE_SIZE}`,
    actual: `page ${page.page}, pageSize ${page.pageSize}`,
    exchanges: [exchange],
  });
  verify(page.data.length === Math.min(DEFAULT_PAGE_SIZE, page.totalCount), `the default page does not hold min(${DEFAULT_PAGE_SIZE}, totalCount) rows`, {
    expected: `${Math.min(DEFAULT_PAGE_SIZE, page.totalCount)} rows`,
    actual: `${page.data.length} rows`,
    exchanges: [exchange],
  });
});

required(`a pageSize above the maximum clamps to it (${DEFAULT_PAGE_SIZE} to ${PAGE_SIZE_CEILING}) and the envelope echoes the effective value`, '§4, §8', async ({ kit }) => {
  const { exchange } = await kit.sample();
  const requested = Number(new URLSearchParams(exchange.target.split('?')[1]).get('pageSize'));
  const page = pageOf(exchange);
  verify(page.pageSize >= DEFAULT_PAGE_SIZE && page.pageSize <= PAGE_SIZE_CEILING && page.pageSize < requested, 'the echoed pageSize is not a clamped maximum', {
    expected: `requested ${requested}; echoed between ${DEFAULT_PAGE_SIZE} and ${PAGE_SIZE_CEILING}`,
    actual: `echoed ${page.pageSize}`,
    exchanges: [exchange],
  });
  verify(page.data.length === Math.min(page.pageSize, page.totalCount), 'the page does not hold as many rows as its echoed pageSize allows', {
    expected: `${Math.min(page.pageSize, page.totalCount)} rows`,
    actual: `${page.data.length} rows`,
    exchanges: [exchange],
  });
});
