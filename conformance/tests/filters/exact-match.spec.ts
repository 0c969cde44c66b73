import { need, pageOf, required, verify } from '../../src/kit.js';
import { byFrequency, list } from '../../src/rows.js';

for (const field of ['poNumber', 'billingRefNumber'] as const) {
  required(`${field} matches exactly: every row has that ${field}, the rows seen with it included`, '§4', async ({ kit }) => {
    const sample = await kit.sample();
    const [value] = byFrequency(sample.rows, (row) => row[field]);
    need(value !== undefined, `the key sees no row with a ${field}`);
    const exchange = await kit.list('primary', { [field]: value, pageSize: 100 });
    const page = pageOf(exchange);
    const others = page.data.filter((row) => row[field] !== value);
    const expected = sample.rows.filter((row) => row[field] === value).map((row) => row.loadNumber);
    const returned = new Set(page.data.map((row) => row.loadNumber));
    const missing = expected.filter((loadNumber) => !returned.has(loadNumber));
    verify(others.length === 0, `${field}=${value} returns rows with another ${field}`, {
      expected: `only ${field} ${JSON.stringify(value)}`,
      actual: list(others.map((row) => `${row.loadNumber}: ${JSON.stringify(row[field])}`)),
      exchanges: [exchange],
    });
    verify(missing.length === 0 || page.hasMore, `${field}=${value} leaves out rows that have it`, {
      expected: list(expected),
      actual: `missing ${list(missing)}`,
      exchanges: [exchange, sample.exchange],
    });
  });
}
