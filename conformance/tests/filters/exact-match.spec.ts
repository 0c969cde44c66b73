import { filtersOfKind, loadMatcher } from '@loadfeed/spec';
import { TEST_PAGE_SIZE_MAX } from '../../src/dataset.js';
import { need, pageOf, required, verify } from '../../src/kit.js';
import { byFrequency, list } from '../../src/rows.js';

// Every filter the contract declares exact (LIST_LOADS_FILTERS), matched as the SDK's mock matches it.
const EXACT_FILTERS = filtersOfKind('exact');

for (const { name: field, key, field: loadField } of EXACT_FILTERS) {
  required(`${field} matches exactly: every row has that ${field}, the rows seen with it included`, '§4', async ({ kit }) => {
    const sample = await kit.sample();
    const [value] = byFrequency(sample.rows, (row) => row[loadField] as string | null);
    need(value !== undefined, `the key sees no row with a ${field}`, 'rows');
    const exchange = await kit.list('primary', { [field]: value, pageSize: TEST_PAGE_SIZE_MAX });
    const page = pageOf(exchange);
    const matches = loadMatcher({ [key]: value })!;
    const others = page.data.filter((row) => !matches(row));
    const expected = sample.rows.filter(matches).map((row) => row.loadNumber);
    const returned = new Set(page.data.map((row) => row.loadNumber));
    const missing = expected.filter((loadNumber) => !returned.has(loadNumber));
    verify(others.length === 0, `${field}=${value} returns rows with another ${field}`, {
      expected: `only ${field} ${JSON.stringify(value)}`,
      actual: list(others.map((row) => `${row.loadNumber}: ${JSON.stringify(row[loadField])}`)),
      exchanges: [exchange],
    });
    verify(missing.length === 0 || page.hasMore, `${field}=${value} leaves out rows that have it`, {
      expected: list(expected),
      actual: `missing ${list(missing)}`,
      exchanges: [exchange, sample.exchange],
    });
  });
}

// A prefix, substring or case-folding match passes the check above whenever no value is a prefix of another;
// a strict prefix of a real value tells it from an exact match.
for (const { name: field, key, field: loadField } of EXACT_FILTERS) {
  required(`${field} given a strict prefix of a real value returns only rows whose ${field} equals that prefix`, '§4', async ({ kit }) => {
    const sample = await kit.sample();
    const value = byFrequency(sample.rows, (row) => row[loadField] as string | null).find((candidate) => candidate.length >= 2);
    need(value !== undefined, `the key sees no row with a ${field} of two characters or more`, 'rows');
    const prefix = value.slice(0, -1);
    const exchange = await kit.list('primary', { [field]: prefix, pageSize: TEST_PAGE_SIZE_MAX });
    const page = pageOf(exchange);
    const matches = loadMatcher({ [key]: prefix })!;
    const others = page.data.filter((row) => !matches(row));
    verify(others.length === 0, `${field}=${prefix} matches more than the value ${JSON.stringify(prefix)}`, {
      expected: `only rows whose ${field} is exactly ${JSON.stringify(prefix)} (a strict prefix of ${JSON.stringify(value)})`,
      actual: `totalCount ${page.totalCount}; ${list(others.map((row) => `${row.loadNumber}: ${JSON.stringify(row[loadField])}`))}`,
      exchanges: [exchange],
    });
  });
}
