import { checkResponse } from '@loadfeed/spec/validate';
import type { ServerInjectResponse } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/admission/key-format.js';
import { revokeKey } from '../../src/admission/keys.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { asChecked, startApp, type TestApp } from '../support/app.js';

/** A 401 without what differs by nature between any two responses: its id and its date. */
function comparable(response: ServerInjectResponse): { status: number; payload: string; headers: Record<string, unknown> } {
  const { 'x-request-id': _id, date: _date, ...headers } = response.headers;
  return { status: response.statusCode, payload: response.payload, headers };
}

describe('authentication', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let valid: string;
  let revoked: string;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
    valid = (await app.key('acme')).key;
    const doomed = await app.key('acme');
    await revokeKey(app.pool, doomed.id);
    revoked = doomed.key;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('admits a valid key with the scheme name in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      expect((await app.get('/api/v1/loads', undefined, { authorization: `${scheme} ${valid}` })).statusCode).toBe(200);
    }
  });

  it('gives a missing, malformed, unknown or revoked key the same 401, byte for byte, with WWW-Authenticate: Bearer', async () => {
    const wellFormedButUnknown = generateKey();
    const attempts: Record<string, Record<string, string>> = {
      missing: {},
      'empty header': { authorization: '' },
      'another scheme': { authorization: `Basic ${Buffer.from(`user:${valid}`).toString('base64')}` },
      'scheme alone': { authorization: 'Bearer' },
      malformed: { authorization: 'Bearer lf_live_nope' },
      'bad checksum': { authorization: `Bearer ${valid.slice(0, -1)}${valid.endsWith('a') ? 'b' : 'a'}` },
      unknown: { authorization: `Bearer ${wellFormedButUnknown}` },
      revoked: { authorization: `Bearer ${revoked}` },
      'two keys': { authorization: `Bearer ${valid} ${valid}` },
    };
    const responses = new Map<string, ServerInjectResponse>();
    for (const [cause, headers] of Object.entries(attempts)) {
      responses.set(cause, await app.get('/api/v1/loads', undefined, headers));
    }
    const reference = comparable(responses.get('missing')!);
    expect(reference.status).toBe(401);
    expect(reference.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(reference.payload)).toEqual({ error: expect.any(String) });
    for (const [cause, response] of responses) {
      expect(comparable(response), cause).toEqual(reference);
      expect(checkResponse(asChecked(response)), cause).toEqual([]);
      expect(response.headers['x-ratelimit-limit'], cause).toBeUndefined();
    }
  });

  it('refuses a malformed key without a database lookup', async () => {
    // With its pool closed, the server can answer only what needs no database.
    const offline = await startApp(database.url);
    await offline.pool.end();
    const malformed = await offline.get('/api/v1/loads', 'lf_live_0000');
    expect(malformed.statusCode).toBe(401);
    const needsLookup = await offline.get('/api/v1/loads', generateKey());
    expect(needsLookup.statusCode).toBe(500);
    await offline.server.stop();
  });

  it('records when a key was last used, on the database clock, at most once a minute', async () => {
    const { id, key } = await app.key('acme');
    const lastUsed = async () =>
      (await app.pool.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE id = $1::uuid', [id])).rows[0]!.at;
    const databaseNow = async () => (await app.pool.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now.getTime();
    expect(await lastUsed()).toBeNull();
    const before = await databaseNow();
    await app.get('/api/v1/loads', key);
    const first = await lastUsed();
    expect(first!.getTime()).toBeGreaterThanOrEqual(before);
    expect(first!.getTime()).toBeLessThanOrEqual(await databaseNow());
    await app.get('/api/v1/loads', key);
    expect(await lastUsed()).toEqual(first);
    // A minute on: the use is recorded again.
    await app.pool.query("UPDATE api_keys SET last_used_at = last_used_at - interval '60 seconds' WHERE id = $1::uuid", [id]);
    const minuteLater = await databaseNow();
    await app.get('/api/v1/loads', key);
    expect((await lastUsed())!.getTime()).toBeGreaterThanOrEqual(minuteLater);
  });

  it('never stores a key, only its hash', async () => {
    const { key } = await app.key('acme');
    const { rows } = await app.pool.query<{ dump: string }>('SELECT string_agg(t::text, \'\n\') AS dump FROM api_keys AS t');
    expect(rows[0]!.dump).not.toContain(key);
    expect(rows[0]!.dump).not.toContain(key.slice(8, 30));
  });
});
