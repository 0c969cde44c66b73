import type { Violation } from '@loadfeed/spec';
import type { Exchange } from '../../src/evidence.js';
import { required, verify, type Kit } from '../../src/kit.js';
import { list } from '../../src/rows.js';

/** Every 200 listLoads response of the run so far, the sample first fetched if need be. */
async function pages(kit: Kit): Promise<Exchange[]> {
  await kit.sample();
  return kit.exchanges.filter((exchange) => exchange.listLoads && exchange.status === 200);
}

function violationsMatching(exchanges: readonly Exchange[], matches: (violation: Violation) => boolean) {
  return exchanges.flatMap((exchange) => exchange.violations.filter(matches).map((violation) => ({ exchange, violation })));
}

async function verifyNoViolations(kit: Kit, statement: string, expected: string, matches: (violation: Violation) => boolean) {
  const found = violationsMatching(await pages(kit), matches);
  verify(found.length === 0, statement, {
    expected,
    actual: list(found.map(({ violation }) => `${violation.path}: ${violation.message}`), 5),
    exchanges: [...new Set(found.map(({ exchange }) => exchange))],
  });
}

required("no load has a property beyond SPEC's 23 fields, save a createdAt date-time", '§2', async ({ kit }) => {
  await verifyNoViolations(kit, 'a load carries a property the contract forbids', 'only the 23 fields (and createdAt)', (violation) =>
    /forbids/.test(violation.message),
  );
});

required('every nullable field is present in every load, carrying null when it has no value', '§2', async ({ kit }) => {
  await verifyNoViolations(kit, 'a load leaves out a field', 'all 23 fields present', (violation) => /must have required property/.test(violation.message));
});

required('every date-time in a load is UTC with millisecond precision and a Z suffix', '§2', async ({ kit }) => {
  await verifyNoViolations(kit, 'a date-time is not in the response form', 'YYYY-MM-DDTHH:MM:SS.sssZ', (violation) =>
    /three fractional digits/.test(violation.message),
  );
});

required('every 200 response is application/json with exactly the page envelope and conforming loads', '§2, §4', async ({ kit }) => {
  await verifyNoViolations(kit, 'a 200 response breaks the contract', 'no violation of the page envelope or the Load schema', () => true);
});
