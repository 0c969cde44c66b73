import fc from 'fast-check';
import { LIST_LOADS_PARAMETERS } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, asChecked, startAppWithKey, type TestApp } from '../support/app.js';

/** Arbitrary text, percent-encoded as a client library would send it (lone surrogates cannot be). */
function encoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '';
  }
}

// Raw pieces reach the server as they are, malformed percent-escapes included.
const piece = fc.oneof(
  fc.string({ unit: 'binary' }).map(encoded),
  fc.string({ unit: 'grapheme-ascii' }).filter((text) => !/[\s#]/.test(text)),
  fc.constantFrom(...LIST_LOADS_PARAMETERS),
  fc.constantFrom('=', '&', '%', '%00', '%ZZ', '%E2%82', '+', '[]', '[0]', '__proto__', 'constructor', '2026-01-01', '-1', '1e309', 'Covered'),
);

// Name=value pairs, so that odd values reach every parameter, and raw pieces between them.
const pair = fc
  .tuple(fc.constantFrom(...LIST_LOADS_PARAMETERS), fc.oneof(piece, fc.constantFrom('%00', 'a%00b', '%C0%80', '%FF')))
  .map(([name, value]) => `${name}=${value}`);
const queryString = fc.array(fc.oneof(pair, piece), { maxLength: 8 }).map((parts) => parts.join('&'));

describe('whatever a client sends', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url));
    await app.load('acme', [aLoad('F-1'), aLoad('F-2', { poNumber: 'P' })]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('never gets a 500 from a query string, and every answer keeps the contract', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        const url = `/api/v1/loads?${query}`;
        const response = await app.get(url, key);
        expect([200, 400], url).toContain(response.statusCode);
        expect(checkResponse(asChecked(response)), url).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('never gets anything but a 200 or the one 401 from an Authorization header', async () => {
    // server.inject() hands the server any value, control characters included, which a socket could not carry.
    const header = fc.oneof(
      fc.string({ unit: 'grapheme-ascii' }),
      fc.string().map((text) => `Bearer ${text}`),
      fc.constant(`Bearer ${key}`),
      fc.constantFrom(`bearer\t${key}`, `Bearer ${key} `, `Bearer  ${key}`, `${key}`, `Bearer lf_live_`),
    );
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        const response = await app.get('/api/v1/loads', undefined, { authorization });
        expect([200, 401]).toContain(response.statusCode);
        expect(checkResponse(asChecked(response))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
