import { RATE_LIMIT_HEADERS, RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import { integerHeader, rateHeaders, saneRateHeaders, serverTime } from '../../src/budget.js';
import type { Exchange } from '../../src/evidence.js';
import { need, required, verify, type Kit } from '../../src/kit.js';
import { list } from '../../src/rows.js';

/** Responses that count against the run's main key and must carry the rate headers (SPEC §8). */
async function counted(kit: Kit): Promise<Exchange[]> {
  await kit.sample();
  return kit.exchanges.filter((exchange) => exchange.credential === 'primary' && exchange.listLoads && (exchange.status === 200 || exchange.status === 400));
}

required('X-RateLimit-Limit, -Remaining and -Reset are integers on every 200 and 400', '§8', async ({ kit }) => {
  const exchanges = await counted(kit);
  const bad = exchanges.flatMap((exchange) =>
    RATE_LIMIT_HEADERS.filter((name) => integerHeader(exchange, name) === undefined).map((name) => ({ exchange, name })),
  );
  verify(bad.length === 0, 'a response lacks an integer rate-limit header', {
    expected: `${RATE_LIMIT_HEADERS.join(', ')} as integers on all ${exchanges.length} responses`,
    actual: list(bad.map(({ exchange, name }) => `#${exchange.id} ${name}: ${exchange.headers[name] ?? '(missing)'}`)),
    exchanges: [...new Set(bad.map(({ exchange }) => exchange))],
  });
});

required('X-RateLimit-Limit is at least 1 and X-RateLimit-Remaining lies between 0 and it on every 200 and 400', '§8', async ({ kit }) => {
  // A limit of 0 on a response that admitted the request, or more remaining than the cap, describes no window.
  const nonsense = (await counted(kit)).flatMap((exchange) => {
    const headers = rateHeaders(exchange);
    if (!headers) return [];
    if (headers.limit < 1) return [{ exchange, what: `x-ratelimit-limit: ${headers.limit} (a cap of no requests, on a ${exchange.status} it admitted)` }];
    if (headers.remaining > headers.limit) return [{ exchange, what: `x-ratelimit-remaining: ${headers.remaining} above x-ratelimit-limit: ${headers.limit}` }];
    return [];
  });
  verify(nonsense.length === 0, 'the rate headers describe no possible window', {
    expected: 'X-RateLimit-Limit >= 1 and 0 <= X-RateLimit-Remaining <= X-RateLimit-Limit',
    actual: list(nonsense.map(({ exchange, what }) => `#${exchange.id} ${what}`)),
    exchanges: nonsense.map(({ exchange }) => exchange),
  });
});

required('X-RateLimit-Limit is the same on every response to one key', '§8', async ({ kit }) => {
  const limits = (await counted(kit)).map((exchange) => integerHeader(exchange, 'x-ratelimit-limit'));
  verify(new Set(limits).size === 1, "the key's limit changes during the run", { expected: `one value`, actual: list([...new Set(limits)]) });
});

/**
 * Two requests in a row with one key, the second sent before the window could move on: X-RateLimit-Reset
 * is when the oldest counted request leaves, so before it nothing has left the window. Two seconds of
 * margin, one for each rounding: the second request's time at the server is estimated from the first's
 * Date header, which drops up to 999 ms, and Reset is the leaving instant rounded up by up to 999 ms. With
 * one second, a request leaving between the two (Remaining +1, then -1: the same Remaining, correctly)
 * was read as a deployment whose Remaining does not fall.
 */
function insideOneWindow(first: Exchange, second: Exchange): boolean {
  const before = rateHeaders(first);
  if (!before || before.remaining === 0 || !rateHeaders(second)) return false;
  const secondAtServer = serverTime(first) + (second.receivedAt - first.receivedAt);
  return secondAtServer < before.reset * 1000 - 2000;
}

function pairsInsideOneWindow(exchanges: readonly Exchange[]): [Exchange, Exchange][] {
  const own = exchanges.filter((exchange) => exchange.credential === 'primary');
  return own.slice(1).flatMap((second, index): [Exchange, Exchange][] => {
    const first = own[index]!;
    const bothCounted = [first, second].every((exchange) => exchange.status === 200 || exchange.status === 400);
    return bothCounted && insideOneWindow(first, second) ? [[first, second]] : [];
  });
}

required('X-RateLimit-Remaining falls by one with each request inside the window', '§8', async ({ kit }) => {
  let pairs = pairsInsideOneWindow(kit.exchanges);
  if (pairs.length === 0) {
    await kit.list('primary', { pageSize: 1 }, { fresh: true });
    await kit.list('primary', { pageSize: 1 }, { fresh: true });
    pairs = pairsInsideOneWindow(kit.exchanges);
  }
  const sane = kit.exchanges.some((exchange) => exchange.credential === 'primary' && saneRateHeaders(exchange) !== undefined);
  need(sane, 'no response to the key carried rate headers that describe a window (see the other rate-limit checks)', 'deployment');
  need(pairs.length > 0, 'no two requests fell inside one rate window', 'budget');
  const wrong = pairs.filter(([first, second]) => rateHeaders(second)!.remaining !== rateHeaders(first)!.remaining - 1);
  verify(wrong.length === 0, 'Remaining does not fall by one per request', {
    expected: `each of ${pairs.length} back-to-back pairs: Remaining n, then n - 1`,
    actual: list(wrong.map(([first, second]) => `#${first.id} ${rateHeaders(first)!.remaining} then #${second.id} ${rateHeaders(second)!.remaining}`)),
    exchanges: wrong.flat(),
  });
});

required(`X-RateLimit-Reset lies within the next ${RATE_WINDOW_SECONDS} seconds`, '§8', async ({ kit }) => {
  const exchanges = (await counted(kit)).filter((exchange) => rateHeaders(exchange) !== undefined);
  need(exchanges.length > 0, 'no response with rate headers', 'deployment');
  // The server's Date drops up to a second and Reset rounds up by up to one: a Reset a window away reads up
  // to two seconds more ahead of the Date. A second more below, for a Date taken after the Reset.
  const off = exchanges.filter((exchange) => {
    const ahead = rateHeaders(exchange)!.reset - serverTime(exchange) / 1000;
    return ahead < -1 || ahead > RATE_WINDOW_SECONDS + 2;
  });
  verify(off.length === 0, `Reset is not within the next ${RATE_WINDOW_SECONDS} seconds`, {
    expected: `Reset - now between 0 and ${RATE_WINDOW_SECONDS} s`,
    actual: list(off.map((exchange) => `#${exchange.id}: ${Math.round(rateHeaders(exchange)!.reset - serverTime(exchange) / 1000)} s ahead`)),
    exchanges: off,
  });
});
