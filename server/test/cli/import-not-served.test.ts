// The import says which of the loads it stored the feed will not serve today: those picking up before
// the 12-month window and those with no pickup date (DECISIONS.md, "Dates and the window").
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { feedWindowStart } from '@loadfeed/spec';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad } from '../support/app.js';
import { cliOk, query } from './run-cli.js';

const DAY = 86_400_000;

describe('loadfeed-server import: what will not be served', () => {
  const database = useTestDatabase();
  const env = () => ({ DATABASE_URL: database.url });
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'loadfeed-not-served-'));
    await cliOk(['migrate'], { env: env() });
    await cliOk(['customers', 'add', 'acme'], { env: env() });
  });

  it('counts the loads before the window and those with no pickup date, in the summary and --json, and stores them all', async () => {
    const start = feedWindowStart(new Date()).getTime();
    const loads = [
      aLoad('OLD-1', { scheduledPickupDate: '2020-03-01T00:00:00.000Z' }),
      aLoad('OLD-2', { scheduledPickupDate: new Date(start - 2 * DAY).toISOString() }),
      aLoad('NONE-1', { scheduledPickupDate: null }),
      aLoad('EDGE-1', { scheduledPickupDate: new Date(start + DAY).toISOString() }),
      aLoad('NEW-1', { scheduledPickupDate: new Date(Date.now() + 30 * DAY).toISOString() }),
    ];
    const path = join(folder, 'mixed.ndjson');
    await writeFile(path, loads.map((load) => JSON.stringify(load)).join('\n') + '\n');
    const windowStart = new Date(start).toISOString().slice(0, 10);
    expect(await cliOk(['import', 'acme', path], { env: env() })).toBe(
      'imported for acme: 5 inserted, 0 changed, 0 unchanged\n' +
        `not served: 3 of them (2 before the feed's 12-month window, which starts ${windowStart}; 1 without a scheduledPickupDate)\n`,
    );
    // Again, unchanged: still counted, since they are still not served.
    expect(JSON.parse(await cliOk(['import', 'acme', path, '--json'], { env: env() }))).toEqual({
      inserted: 0,
      changed: 0,
      unchanged: 5,
      notServed: { beforeWindow: 2, noPickupDate: 1, windowStart },
    });
    const stored = await query<{ load_number: string }>(database.url, 'SELECT load_number FROM loads ORDER BY load_number');
    expect(stored.map((row) => row.load_number)).toEqual(['EDGE-1', 'NEW-1', 'NONE-1', 'OLD-1', 'OLD-2']);
  });
});
