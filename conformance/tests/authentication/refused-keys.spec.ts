import { LIST_LOADS_PATH } from '@loadfeed/spec';
import { randomInt } from 'node:crypto';
import type { Exchange } from '../../src/evidence.js';
import { need, pageOf, required, verify, warning, type Kit } from '../../src/kit.js';

/** A string of the same shape as `text`: each letter or digit replaced by a random one of its kind. */
function lookalike(text: string): string {
  const pools = ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789'];
  return [...text].map((char) => {
    const pool = pools.find((candidate) => candidate.includes(char));
    return pool ? pool[randomInt(pool.length)]! : char;
  }).join('');
}

/** The key with the same prefix (up to its last underscore) and a random secret of the same shape. */
function unknownKey(key: string): string {
  const cut = key.lastIndexOf('_') + 1;
  return key.slice(0, cut) + lookalike(key.slice(cut));
}

function tampered(key: string): string {
  const last = key.at(-1)!;
  return key.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

/** Ways a request can fail to carry a valid key; each must get the same 401 (SPEC §5). */
const REFUSED: readonly { cause: string; authorization: (key: string) => string | null }[] = [
  { cause: 'a request without an Authorization header', authorization: () => null },
  { cause: 'a Bearer header with no key', authorization: () => 'Bearer' },
  { cause: 'the key under another scheme (Basic)', authorization: (key) => `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
  { cause: 'the key without the Bearer scheme', authorization: (key) => key },
  { cause: 'a malformed key: the valid key with its last character changed', authorization: (key) => `Bearer ${tampered(key)}` },
  { cause: 'a malformed key: the valid key cut in half', authorization: (key) => `Bearer ${key.slice(0, Math.ceil(key.length / 2))}` },
];

/** The made-up keys of a run are drawn once per worker, so every check sees the same unknown key. */
const unknownKeys = new Map<string, string>();

async function refused(kit: Kit, authorization: string | null): Promise<Exchange> {
  return kit.send({ path: `${LIST_LOADS_PATH}?pageSize=1`, authorization, credential: authorization === null ? 'none' : 'made-up', listLoads: true });
}

async function unknown(kit: Kit): Promise<Exchange> {
  const key = kit.options.keys.primary!;
  if (!unknownKeys.has(key)) unknownKeys.set(key, unknownKey(key));
  return refused(kit, `Bearer ${unknownKeys.get(key)}`);
}

async function revoked(kit: Kit): Promise<Exchange | undefined> {
  if (kit.options.keys.revoked === undefined) return undefined;
  return kit.list('revoked', { pageSize: 1 });
}

function verify401(exchange: Exchange, cause: string): void {
  verify(exchange.status === 401, `${cause} is refused with 401`, { expected: '401', actual: `${exchange.status}`, exchanges: [exchange] });
}

for (const { cause, authorization } of REFUSED) {
  required(`${cause} gets 401 with the error body`, '§5, §7', async ({ kit }) => {
    verify401(await refused(kit, authorization(kit.options.keys.primary!)), cause);
  });
}

required('an unknown key of the valid shape (same prefix, random secret) gets 401', '§5, §7', async ({ kit }) => {
  verify401(await unknown(kit), 'an unknown key');
});

required('a revoked key gets 401', '§5, §7', async ({ kit }) => {
  const exchange = await revoked(kit);
  need(exchange !== undefined, 'no revoked key given (--revoked-key)', 'revoked-key');
  verify401(exchange, 'a revoked key');
});

/** Headers that differ between any two responses for reasons other than the cause of a 401. */
const INCIDENTAL_HEADERS = new Set(['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id', 'x-response-time']);

required('every 401 is the same whatever the cause: status, body and header names are identical', '§5', async ({ kit }) => {
  const key = kit.options.keys.primary!;
  const exchanges: Exchange[] = [];
  for (const { authorization } of REFUSED) exchanges.push(await refused(kit, authorization(key)));
  exchanges.push(await unknown(kit));
  const revokedExchange = await revoked(kit);
  if (revokedExchange) exchanges.push(revokedExchange);
  const [first, ...rest] = exchanges;
  const headerNames = (exchange: Exchange) => Object.keys(exchange.headers).filter((name) => !INCIDENTAL_HEADERS.has(name)).sort().join(', ');
  for (const other of rest) {
    verify(other.status === first!.status && JSON.stringify(other.body) === JSON.stringify(first!.body) && headerNames(other) === headerNames(first!), 'two refused requests can be told apart', {
      expected: `${first!.status} ${first!.bodyExcerpt} with headers ${headerNames(first!)}`,
      actual: `${other.status} ${other.bodyExcerpt} with headers ${headerNames(other)}`,
      exchanges: [first, other],
    });
  }
});

warning('every 401 carries WWW-Authenticate: Bearer', 'DECISIONS: Authentication; SPEC §5', async ({ kit }) => {
  const exchange = await refused(kit, null);
  verify(/^bearer\b/i.test(exchange.headers['www-authenticate'] ?? ''), 'a 401 names its scheme', {
    expected: 'WWW-Authenticate: Bearer',
    actual: `WWW-Authenticate: ${exchange.headers['www-authenticate'] ?? '(none)'}`,
    exchanges: [exchange],
  });
});

required('a valid key gets 200 with a page of its loads', '§5', async ({ kit }) => {
  pageOf((await kit.sample()).exchange);
});

warning('the Bearer scheme name is case-insensitive: "bearer <key>" gets 200', 'DECISIONS: Authentication; SPEC §5', async ({ kit }) => {
  const exchange = await kit.send({
    path: `${LIST_LOADS_PATH}?pageSize=1`,
    authorization: `bearer ${kit.options.keys.primary}`,
    credential: 'primary',
    listLoads: true,
  });
  verify(exchange.status === 200, 'a lower-case scheme name is accepted', { expected: '200', actual: `${exchange.status}`, exchanges: [exchange] });
});
