import { RATE_LIMIT_HEADERS, RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import { EXHAUST_NOTE, integerHeader, retryAfterSeconds, saneRateHeaders } from '../../src/budget.js';
import type { Exchange } from '../../src/evidence.js';
import { need, pageOf, required, verify, type Kit } from '../../src/kit.js';

const BURST_CAP = 120;

/** The 429 the burst met: sends unpaced requests until the key is refused, at most its limit and two more. */
async function exhaust(kit: Kit): Promise<Exchange> {
  need(kit.options.exhaust, 'the run was told not to exhaust the key (--no-exhaust)', 'opted-out');
  const met = kit.exchanges.findLast((exchange) => exchange.note === EXHAUST_NOTE && exchange.status === 429);
  if (met) return met;
  // A limit the headers state sensibly, else SPEC §8's default; never more than a burst can afford.
  const limit = Math.min(Math.max(...kit.exchanges.map((exchange) => saneRateHeaders(exchange)?.limit ?? 0), 10), BURST_CAP);
  const burst: Exchange[] = [];
  for (let sent = 0; sent < limit + 2; sent += 1) {
    const exchange = await kit.list('primary', { pageSize: 1 }, { fresh: true, pace: false, note: EXHAUST_NOTE });
    burst.push(exchange);
    if (exchange.status === 429) return exchange;
  }
  return verify(false, 'going past the limit never gave a 429', {
    expected: `a 429 within ${limit + 2} requests (limit ${limit})`,
    actual: `${burst.length} responses: ${burst.map((exchange) => exchange.status).join(' ')}`,
    exchanges: burst.slice(-3),
  }) as never;
}

required(`going past the limit gives 429 with Retry-After (an integer, 1 to ${RATE_WINDOW_SECONDS}) and the X-RateLimit-* headers`, '§7, §8', async ({ kit }) => {
  const refused = await exhaust(kit);
  const retryAfter = retryAfterSeconds(refused);
  verify(retryAfter !== undefined && retryAfter >= 1 && retryAfter <= RATE_WINDOW_SECONDS, 'the 429 does not say when to come back', {
    expected: `Retry-After: an integer from 1 to ${RATE_WINDOW_SECONDS}`,
    actual: `Retry-After: ${refused.headers['retry-after'] ?? '(missing)'}`,
    exchanges: [refused],
  });
  const missing = RATE_LIMIT_HEADERS.filter((name) => integerHeader(refused, name) === undefined);
  verify(missing.length === 0, 'the 429 lacks rate-limit headers', { expected: RATE_LIMIT_HEADERS.join(', '), actual: `missing ${missing.join(', ')}`, exchanges: [refused] });
});

required('a request after waiting Retry-After seconds is admitted', '§7', async ({ kit }) => {
  const refused = await exhaust(kit);
  const retryAfter = retryAfterSeconds(refused);
  need(retryAfter !== undefined && retryAfter <= RATE_WINDOW_SECONDS, 'the 429 gave no usable Retry-After', 'deployment');
  const waitFirstMs = Math.max(0, refused.receivedAt + retryAfter * 1000 - Date.now());
  const again = await kit.list('primary', { pageSize: 1 }, { fresh: true, pace: false, waitFirstMs, note: 'after Retry-After' });
  pageOf(again);
});
