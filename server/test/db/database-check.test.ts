// The check of the databases (db/database-check.ts), against a primary that answers slowly.
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig, standbyOptionsOf } from '../../src/config.js';
import { DatabaseCheck } from '../../src/db/database-check.js';
import { PrimaryBreaker } from '../../src/db/primary-breaker.js';
import { Standbys } from '../../src/db/standbys.js';

describe('the check every second', () => {
  it('runs one check at a time, so a slow one is never overtaken by a newer one that it would overwrite', async () => {
    let underWay = 0;
    let most = 0;
    // A primary whose every answer takes longer than the second between checks.
    const slowPrimary = {
      query: async () => {
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
    await new Promise((resolve) => setTimeout(resolve, 3_600));
    await check.stop();
    expect(most).toBe(1);
    expect(breaker.isOpen()).toBe(false);
  });
});
