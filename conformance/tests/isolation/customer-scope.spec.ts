import { TEST_PAGE_SIZE_MAX } from '../../src/dataset.js';
import { need, pageOf, required, verify, type Kit } from '../../src/kit.js';
import { byFrequency, list, loadNumbers } from '../../src/rows.js';

async function bothSamples(kit: Kit) {
  need(kit.options.keys.second !== undefined, 'no second customer key given (--second-key)', 'second-key');
  const own = await kit.sample('primary');
  const other = await kit.sample('second');
  need(own.rows.length > 0 && other.rows.length > 0, `the keys see ${own.rows.length} and ${other.rows.length} rows; each must see one`, 'rows');
  return { own, other };
}

required("two customers' keys see disjoint sets of loadNumbers", '§1', async ({ kit }) => {
  const { own, other } = await bothSamples(kit);
  const theirs = new Set(loadNumbers(other.rows));
  const shared = loadNumbers(own.rows).filter((loadNumber) => theirs.has(loadNumber));
  verify(shared.length === 0, "one customer's key sees the other's loads", {
    expected: 'no loadNumber in both',
    actual: `in both: ${list(shared)}`,
    exchanges: [own.exchange, other.exchange],
  });
});

for (const field of ['poNumber', 'billingRefNumber'] as const) {
  required(`a ${field} of one customer asked for with the other customer's key returns none of the first customer's rows`, '§1', async ({ kit }) => {
    const { own, other } = await bothSamples(kit);
    const theirValues = new Set(other.rows.map((row) => row[field]));
    // A value the other customer also uses is no test of isolation: pick one only the first customer has.
    const value = byFrequency(own.rows, (row) => row[field]).find((candidate) => !theirValues.has(candidate));
    need(value !== undefined, `no ${field} that only the first customer uses`, 'rows');
    const exchange = await kit.list('second', { [field]: value, pageSize: TEST_PAGE_SIZE_MAX });
    const page = pageOf(exchange);
    const ours = new Set(loadNumbers(own.rows));
    const leaked = page.data.filter((row) => ours.has(row.loadNumber));
    verify(leaked.length === 0 && (!other.complete || page.totalCount === 0), `${field}=${value} with the other key finds rows`, {
      expected: other.complete ? 'totalCount 0' : "none of the first customer's rows",
      actual: `totalCount ${page.totalCount}; first customer's rows: ${list(loadNumbers(leaked))}`,
      exchanges: [exchange],
    });
  });
}
