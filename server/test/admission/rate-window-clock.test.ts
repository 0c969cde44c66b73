// The rolling window's arithmetic on a simulated database clock (simulated-window.ts): what every
// instance's rate headers say, whatever its own clock, at chosen instants.
import { RATE_WINDOW_MS, RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { admitAt } from './simulated-window.js';

const T0 = Date.parse('2026-06-15T12:00:00.400Z');
const seconds = (ms: number) => Math.ceil(ms / 1000);
/** A sixth of the window: the test's requests are this far apart. */
const STEP = RATE_WINDOW_MS / 6;

describe('the rolling window on the database clock', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;
  let twin: pg.Pool;

  beforeAll(async () => {
    await migrate(database.url);
    pool = createPool(database.url, { max: 2 });
    twin = createPool(database.url, { max: 2 });
    await addCustomer(pool, 'acme');
  });
  afterAll(async () => {
    await pool?.end();
    await twin?.end();
  });

  const newKey = async () => (await createKey(pool, 'acme')).id;

  it(`counts a rolling ${RATE_WINDOW_SECONDS} s: Remaining, Reset at the oldest counted request's exit, Retry-After on a refusal`, async () => {
    const key = await newKey();
    const exitOfFirst = seconds(T0 + RATE_WINDOW_MS);
    expect(await admitAt(pool, key, 3, T0)).toMatchObject({ admitted: true, remaining: 2, resetAt: exitOfFirst });
    expect(await admitAt(twin, key, 3, T0 + STEP)).toMatchObject({ admitted: true, remaining: 1, resetAt: exitOfFirst });
    expect(await admitAt(pool, key, 3, T0 + 2 * STEP)).toMatchObject({ admitted: true, remaining: 0, resetAt: exitOfFirst });
    const refused = await admitAt(twin, key, 3, T0 + 3 * STEP);
    expect(refused).toMatchObject({ admitted: false, remaining: 0, resetAt: exitOfFirst, retryAfter: seconds(RATE_WINDOW_MS - 3 * STEP) });
    expect(refused.retryAfter).toBeDefined();
    // The first request leaves the window exactly a window after it was counted.
    expect(await admitAt(pool, key, 3, T0 + RATE_WINDOW_MS - 1)).toMatchObject({ admitted: false, retryAfter: 1 });
    expect(await admitAt(twin, key, 3, T0 + RATE_WINDOW_MS)).toMatchObject({ admitted: true, remaining: 0, resetAt: seconds(T0 + STEP + RATE_WINDOW_MS) });
  });

  it('computes the headers from the database clock reading it returns, which the response Date carries', async () => {
    const key = await newKey();
    const decision = await admitAt(pool, key, 3, T0);
    expect(decision.countedAt.getTime()).toBe(T0);
  });

  it('does not count a refused request', async () => {
    const key = await newKey();
    expect((await admitAt(pool, key, 1, T0)).admitted).toBe(true);
    for (let attempt = 1; attempt <= 5; attempt += 1) expect((await admitAt(pool, key, 1, T0 + attempt * STEP)).admitted).toBe(false);
    // Had the refusals counted, the window would still be full a window after the first request.
    expect(await admitAt(pool, key, 1, T0 + RATE_WINDOW_MS)).toMatchObject({ admitted: true, remaining: 0 });
  });

  it('keeps only the requests still in the window, in the one row of the key', async () => {
    const key = await newKey();
    await admitAt(pool, key, 3, T0);
    await admitAt(pool, key, 3, T0 + 1_000);
    await admitAt(pool, key, 3, T0 + RATE_WINDOW_MS + 1_000);
    const { rows } = await pool.query<{ stamps: Date[] }>('SELECT stamps FROM rate_limit_windows WHERE key_id = $1::uuid', [key]);
    expect(rows.map((row) => row.stamps.map((stamp) => stamp.getTime()))).toEqual([[T0 + RATE_WINDOW_MS + 1_000]]);
  });

  it('counts requests of the same millisecond one by one', async () => {
    const key = await newKey();
    const decisions = [];
    for (let attempt = 0; attempt < 4; attempt += 1) decisions.push(await admitAt(attempt % 2 ? twin : pool, key, 3, T0));
    expect(decisions.map((decision) => [decision.admitted, decision.remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0]]);
    expect(decisions[3]!.retryAfter).toBe(RATE_WINDOW_SECONDS);
  });

  it('above 1,000 a minute counts per second of the clock, at most 1 s late, never over the limit', async () => {
    const key = await newKey();
    const limit = 1_001;
    // Two requests a millisecond, all in the second of T0 (its 400th to 900th millisecond).
    for (let index = 0; index < limit; index += 1) expect((await admitAt(pool, key, limit, T0 + Math.floor(index / 2))).admitted).toBe(true);
    // The window is full; the second of T0 leaves when its last millisecond does, a window and 0.999 s after it starts.
    const refused = await admitAt(pool, key, limit, T0 + 3 * STEP);
    const exitOfT0sSecond = Math.floor(T0 / 1000) * 1000 + RATE_WINDOW_MS + 999;
    expect(refused).toMatchObject({ admitted: false, remaining: 0, resetAt: seconds(exitOfT0sSecond), retryAfter: seconds(exitOfT0sSecond - T0 - 3 * STEP) });
    expect((await admitAt(pool, key, limit, exitOfT0sSecond - 1)).admitted).toBe(false);
    expect(await admitAt(pool, key, limit, exitOfT0sSecond)).toMatchObject({ admitted: true, remaining: limit - 1 });
    const { rows } = await pool.query<{ entries: number }>('SELECT cardinality(stamps) AS entries FROM rate_limit_windows WHERE key_id = $1::uuid', [key]);
    expect(rows[0]!.entries).toBeLessThanOrEqual(RATE_WINDOW_SECONDS + 1);
  });

  it('keeps counting what it counted when a key’s limit crosses 1,000 either way', async () => {
    const key = await newKey();
    for (let index = 0; index < 5; index += 1) await admitAt(pool, key, 10, T0 + index * 1_000);
    // Raised to 2,000: the five stay counted, now per second.
    expect(await admitAt(pool, key, 2_000, T0 + STEP)).toMatchObject({ admitted: true, remaining: 2_000 - 6 });
    // Lowered to 6: all six still count, so the seventh is refused until the first leaves (at most 1 s late).
    const refused = await admitAt(pool, key, 6, T0 + 2 * STEP);
    expect(refused).toMatchObject({ admitted: false, remaining: 0 });
    expect(refused.retryAfter).toBeGreaterThanOrEqual((RATE_WINDOW_MS - 2 * STEP) / 1000);
    expect(refused.retryAfter).toBeLessThanOrEqual((RATE_WINDOW_MS - 2 * STEP) / 1000 + 1);
  });
});
