import { RATE_LIMIT_HEADERS } from '@loadfeed/spec';
import { checkErrorBody } from '@loadfeed/spec/validate';
import { integerHeader } from '../../src/budget.js';
import type { Exchange } from '../../src/evidence.js';
import { need, required, verify, warning, type Kit } from '../../src/kit.js';
import { list } from '../../src/rows.js';

/** Invalid queries SPEC §4 rules out; each must be a 400 whose details list the problem. */
const INVALID: readonly { what: string; query: string }[] = [
  { what: 'an unparseable updatedSince', query: 'updatedSince=not-a-date' },
  { what: 'a status outside the closed list', query: 'status=Shipped' },
  { what: 'page=0', query: 'page=0' },
  { what: 'pageSize=0', query: 'pageSize=0' },
  { what: 'a page that is not an integer', query: 'page=1.5' },
];

/** Queries only DECISIONS.md rules out. */
const DECIDED_INVALID: readonly { what: string; query: string }[] = [
  { what: 'an unknown parameter (a typo of updatedSince)', query: 'updatedsince=2026-01-01' },
  { what: 'a single-valued parameter given twice', query: 'page=1&page=2' },
  { what: 'an empty value', query: 'poNumber=' },
];

function verify400(exchange: Exchange, what: string): void {
  const body = exchange.body as { details?: unknown } | null;
  const details = body?.details;
  verify(exchange.status === 400 && Array.isArray(details) && details.length > 0 && details.every((detail) => typeof detail === 'string'), `${what} is not a 400 with details`, {
    expected: '400 with a non-empty details array of strings',
    actual: `${exchange.status} ${exchange.bodyExcerpt}`,
    exchanges: [exchange],
  });
}

for (const { what, query } of INVALID) {
  required(`${what} (${query}) gets 400 with details`, '§4, §7', async ({ kit }) => {
    verify400(await kit.list('primary', query), what);
  });
}

for (const { what, query } of DECIDED_INVALID) {
  warning(`${what} (${query}) gets 400 with details`, 'DECISIONS: Query parameters; SPEC §7', async ({ kit }) => {
    verify400(await kit.list('primary', query), what);
  });
}

async function errors(kit: Kit): Promise<Exchange[]> {
  for (const { query } of INVALID) await kit.list('primary', query);
  return kit.exchanges.filter((exchange) => exchange.listLoads && exchange.status >= 400);
}

required('error bodies carry error, details on 400 only, and no other property', '§2, §7', async ({ kit }) => {
  const broken = (await errors(kit)).map((exchange) => ({ exchange, violations: checkErrorBody(exchange.status, exchange.body) })).filter(({ violations }) => violations.length > 0);
  verify(broken.length === 0, 'an error body breaks the contract', {
    expected: '{ error, details? } as SPEC §2 describes',
    actual: list(broken.flatMap(({ exchange, violations }) => violations.map((violation) => `${exchange.status} ${violation.path}: ${violation.message}`))),
    exchanges: broken.map(({ exchange }) => exchange),
  });
});

required('400 responses carry X-RateLimit-Limit, -Remaining and -Reset', '§4, §8', async ({ kit }) => {
  const bad = (await errors(kit)).filter((exchange) => exchange.status === 400);
  need(bad.length > 0, 'no 400 came back', 'deployment');
  const bare = bad.filter((exchange) => RATE_LIMIT_HEADERS.some((name) => integerHeader(exchange, name) === undefined));
  verify(bare.length === 0, 'a 400 lacks the rate-limit headers', { expected: RATE_LIMIT_HEADERS.join(', '), actual: `${bare.length} of ${bad.length} without them`, exchanges: bare });
});

warning('400 details name the parameter at fault', 'good practice; SPEC §7 (per-parameter messages)', async ({ kit }) => {
  const bad = (await errors(kit)).filter((exchange) => exchange.status === 400);
  const silent = bad.filter((exchange) => {
    const names = [...new URLSearchParams(exchange.target.split('?')[1]).keys()];
    const details = (exchange.body as { details?: unknown[] } | null)?.details ?? [];
    return !names.some((name) => details.some((detail) => String(detail).includes(name)));
  });
  verify(silent.length === 0, 'a 400 does not say which parameter is wrong', { expected: 'each 400 names a parameter it was sent', actual: list(silent.map((exchange) => exchange.target)), exchanges: silent });
});
