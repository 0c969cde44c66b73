import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWellFormedKey } from '../../src/admission/key-format.js';
import { addCustomer, listCustomers, OperatorError } from '../../src/customers.js';
import { createKey, listKeys, revokeKey } from '../../src/admission/keys.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';

describe('customers and keys, as operators handle them', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('adds customers with a code and a name (the code by default) and lists them by code', async () => {
    await addCustomer(app.pool, 'zeta', 'Zeta Freight');
    await addCustomer(app.pool, 'alpha');
    expect((await listCustomers(app.pool)).map(({ code, name }) => ({ code, name }))).toEqual([
      { code: 'alpha', name: 'alpha' },
      { code: 'zeta', name: 'Zeta Freight' },
    ]);
  });

  it('refuses a duplicate or badly formed customer code with a one-line reason', async () => {
    await expect(addCustomer(app.pool, 'alpha')).rejects.toThrow(new OperatorError('customer "alpha" exists already'));
    for (const bad of ['', ' spaced', 'semi;colon', 'x'.repeat(65), '-lead']) {
      await expect(addCustomer(app.pool, bad)).rejects.toThrow(OperatorError);
    }
  });

  it('shows a new key once; listings show its id, hint and limits but never the key', async () => {
    const issued = await createKey(app.pool, 'alpha', { rateLimit: 120 });
    expect(isWellFormedKey(issued.key)).toBe(true);
    expect(issued).toMatchObject({ customerCode: 'alpha', rateLimit: 120, hint: `lf_live_…${issued.key.slice(-4)}` });
    const listed = (await listKeys(app.pool, 'alpha')).find((key) => key.id === issued.id)!;
    expect(listed).toMatchObject({ id: issued.id, hint: issued.hint, customerCode: 'alpha', rateLimit: 120, lastUsedAt: null, revokedAt: null });
    expect(JSON.stringify(await listKeys(app.pool))).not.toContain(issued.key.slice(8));
  });

  it('lists one customer\'s keys or all of them', async () => {
    await createKey(app.pool, 'zeta');
    expect((await listKeys(app.pool, 'zeta')).map((key) => key.customerCode)).toEqual(['zeta']);
    expect(new Set((await listKeys(app.pool)).map((key) => key.customerCode))).toEqual(new Set(['alpha', 'zeta']));
  });

  it('revokes a key so that its next request gets a 401, and keeps the first revocation time', async () => {
    const { id, key } = await createKey(app.pool, 'alpha');
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(200);
    await revokeKey(app.pool, id);
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(401);
    const first = (await listKeys(app.pool, 'alpha')).find((listed) => listed.id === id)!.revokedAt;
    expect(first).toBeInstanceOf(Date);
    await revokeKey(app.pool, id);
    expect((await listKeys(app.pool, 'alpha')).find((listed) => listed.id === id)!.revokedAt).toEqual(first);
  });

  it('rotates: a second key works beside the first until the first is revoked', async () => {
    const old = await createKey(app.pool, 'zeta');
    const next = await createKey(app.pool, 'zeta');
    expect((await app.get('/api/v1/loads', old.key)).statusCode).toBe(200);
    expect((await app.get('/api/v1/loads', next.key)).statusCode).toBe(200);
    await revokeKey(app.pool, old.id);
    expect((await app.get('/api/v1/loads', old.key)).statusCode).toBe(401);
    expect((await app.get('/api/v1/loads', next.key)).statusCode).toBe(200);
  });

  it('names what is wrong: an unknown customer, an unknown or malformed key id, a bad rate limit', async () => {
    await expect(createKey(app.pool, 'nobody')).rejects.toThrow(/no customer has the code "nobody"/);
    await expect(listKeys(app.pool, 'nobody')).rejects.toThrow(OperatorError);
    await expect(revokeKey(app.pool, 'not-an-id')).rejects.toThrow(/is not a key id/);
    await expect(revokeKey(app.pool, '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/no key has the id/);
    for (const rateLimit of [0, -1, 1.5, 2 ** 31]) {
      await expect(createKey(app.pool, 'alpha', { rateLimit })).rejects.toThrow(/rate limit must be a whole number/);
    }
  });
});
