// The sync against the real reference server on PostgreSQL: concurrent writes during the sweep, ties,
// and a crash mid-sweep.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RATE_LIMIT, RATE_WINDOW_MS } from '@loadfeed/spec';
import { describe, expect, it, vi } from 'vitest';
import { fileCursorStore, syncLoads, type LoadRow, type SyncStrategy } from '../../src/index.js';
import { createCopy, loadInput, loadInputs } from '../helpers.js';
import { useTestServer, type Customer } from './fixture.js';

const kit = useTestServer();

/** A fetch that runs `before(n)` ahead of the n-th request it forwards. */
function interleaved(before: (request: number) => Promise<void>) {
  let count = 0;
  return async (request: Request) => {
    count += 1;
    await before(count);
    return fetch(request);
  };
}

async function importOneByOne(customer: Customer, count: number) {
  for (const input of loadInputs(count)) await kit.server.importLoads(customer.code, [input]);
}

/**
 * 30 loads, pageSize 10; just before the second request, the first load changes. Returns what the copy
 * lacks after one sweep and after SPEC's "airtight" re-query from the sweep's start.
 */
async function midSweepChange(strategy: SyncStrategy, layout: 'distinct' | 'one write') {
  const customer = await kit.customer();
  if (layout === 'one write') await kit.server.importLoads(customer.code, loadInputs(30));
  else await importOneByOne(customer, 30);
  // The server's Date header has whole seconds, so the sweep's start on its clock is known to a second:
  // the sweep starts once that second is past every row's stamp, so that the re-query from the sweep start
  // could only bring back the row changed mid-sweep.
  const latest = Math.max(...(await customer.served()).map((load) => Date.parse(load.updatedAt)));
  await vi.waitUntil(() => Math.floor(Date.now() / 1000) * 1000 > latest, { timeout: 5_000, interval: 20 });
  const client = customer.client({
    fetch: interleaved(async (request) => {
      if (request === 2) await kit.server.importLoads(customer.code, [loadInput(1, { status: 'Cancelled' })]);
    }),
  });
  const copy = createCopy();
  await syncLoads({ client, upsert: copy.upsert, pageSize: 10, strategy, backfill: true });
  return copy.differences(await customer.served());
}

describe('syncLoads against the reference server', () => {
  it('with concurrent writes during the sweep, the copy ends equal to what the server serves', async () => {
    const customer = await kit.customer();
    await importOneByOne(customer, 40);
    await kit.server.importLoads(customer.code, loadInputs(60, 100));
    let edit = 0;
    const client = customer.client({
      fetch: interleaved(async (request) => {
        if (request > 12) return;
        edit += 1;
        const served = await customer.served();
        const pick = (offset: number) => {
          const { updatedAt: _kept, ...load } = served[(request * 7 + offset) % served.length]!;
          return { ...load, miles: `${edit}.25` };
        };
        await kit.server.importLoads(customer.code, [pick(0), pick(3), pick(11)]);
        await kit.server.importLoads(customer.code, [loadInput(1000 + request)]);
      }),
    });
    const copy = createCopy();
    await syncLoads({ client, upsert: copy.upsert, pageSize: 7 });
    expect(copy.differences(await customer.served())).toEqual([]);
    expect(kit.violations).toEqual([]);
  });

  it.each(['distinct', 'one write'] as const)(
    'with %s timestamps, a load changed mid-sweep makes the pages strategy lose a row, even with the re-query from the sweep start',
    async (layout) => {
      const differences = await midSweepChange('pages', layout);
      expect(differences).toHaveLength(1);
      expect(differences[0]).toMatch(/missing$/);
    },
  );

  it.each(['distinct', 'one write'] as const)('with %s timestamps, the same change costs the default key walk nothing', async (layout) => {
    expect(await midSweepChange('keys', layout)).toEqual([]);
  });

  it('a crash mid-sweep and a resume from the file cursor lose nothing', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loadfeed-sdk-crash-'));
    try {
      const customer = await kit.customer();
      await importOneByOne(customer, 25);
      await kit.server.importLoads(customer.code, loadInputs(35, 200));
      const path = join(folder, 'cursor.json');
      const copy = createCopy();
      let pages = 0;
      const crashing = (rows: LoadRow[]) => {
        pages += 1;
        if (pages === 4) throw new Error('process killed');
        copy.upsert(rows);
      };
      await expect(syncLoads({ client: customer.client(), upsert: crashing, cursorStore: fileCursorStore(path), pageSize: 8 })).rejects.toThrow('process killed');
      expect(copy.rows.size).toBeLessThan(60);
      // A new process: a new client, the cursor from the file, an update that happened while it was down.
      await kit.server.importLoads(customer.code, [loadInput(3, { miles: '9.75' })]);
      await syncLoads({ client: customer.client(), upsert: copy.upsert, cursorStore: fileCursorStore(path), pageSize: 8, overlapMs: 0 });
      expect(copy.differences(await customer.served())).toEqual([]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it(`a sync at the default ${DEFAULT_RATE_LIMIT} a minute never sees a 429 (pacing from the real headers)`, async () => {
    // SPEC §8's default limit, on the server's real rolling window: the one test here that waits a real window.
    const customer = await kit.customer(DEFAULT_RATE_LIMIT);
    for (const input of loadInputs(16)) await kit.server.importLoads(customer.code, [input]);
    const statuses: number[] = [];
    const waits: number[] = [];
    const retries: string[] = [];
    const client = customer.client({
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
      logger: { onWait: ({ delayMs }) => void waits.push(delayMs), onRetry: ({ reason }) => void retries.push(reason) },
    });
    const copy = createCopy();
    // Two a page (the server's feed is settled): page 1, then a check and the other 15 rows by page number
    // from its last row, 8 pages, checked every two pages (3 checks): 13 requests.
    const summary = await syncLoads({ client, upsert: copy.upsert, pageSize: 2 });
    expect(statuses).toHaveLength(13);
    expect(statuses).toEqual(statuses.map(() => 200));
    expect(retries).toEqual([]);
    expect(summary).toMatchObject({ rows: 16, requests: statuses.length, retryWaitMs: 0 });
    expect(copy.rows.size).toBe(16);
    // The request after the limit's waited for the window, once, about a window after the first went out.
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(RATE_WINDOW_MS - 10_000);
    expect(waits[0]).toBeLessThanOrEqual(RATE_WINDOW_MS + 2_000);
    expect(summary.quotaWaitMs).toBe(waits[0]);
  }, 150_000);
});
