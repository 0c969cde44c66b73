// The check of the databases (db/database-check.ts), against a primary that answers slowly.
import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, standbyOptionsOf } from '../../src/config/load.js';
import { DatabaseCheck } from '../../src/db/database-check.js';
import { PrimaryBreaker } from '../../src/db/primary-breaker.js';
import { Standbys } from '../../src/db/standbys.js';

describe('the check every second', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one check at a time, so a slow one is never overtaken by a newer one that it would overwrite', async () => {
    // A fake clock: 3.6 s of checks pass at once instead of being waited out.
    vi.useFakeTimers();
    let underWay = 0;
    let most = 0;
    let checks = 0;
    // A primary whose every answer takes longer than the second between checks.
    const slowPrimary = {
      query: async () => {
        checks += 1;
        underWay += 1;
        most = Math.max(most, underWay);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        underWay -= 1;
        return { rows: [{ lsn: null }] };
      },
    } as unknown as pg.Pool;
    const breaker = new PrimaryBreaker();
    const check = new DatabaseCheck(slowPrimary, new Standbys([], standbyOptionsOf(loadConfig({}))), breaker, { everyMs: 1_000, timeoutMs: 2_000 });
    check.start();
    await vi.advanceTimersByTimeAsync(3_600);
    await check.stop();
    // Checks at 0 s and 2 s; the ticks at 1 s and 3 s found one under way and let it be.
    expect(checks).toBe(2);
    expect(most).toBe(1);
    expect(breaker.isOpen()).toBe(false);
  });
});
