// The DuckDB copy on its own: a page's rows and its cursor commit together, an older row never replaces a
// newer one and the cursor never moves back, existing columns that would change values are refused, a
// database that keeps nothing is refused, and the README's one statement writes the copy as Parquet.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDuckdbDestination } from '../../src/destinations.js';
import type { LoadRow } from '../../src/index.js';
import { readDuckdb, withDuckdb } from '../cli/copies.js';
import { useScratchFolder } from '../cli/run-cli.js';
import { row } from './rows.js';

const scratch = useScratchFolder();
const T1 = '2026-11-22T01:00:00.123Z';
const T2 = '2026-11-22T02:00:00.000Z';

describe('the DuckDB database', () => {
  it("commits a page's rows and the cursor together: a page whose write fails part-way leaves neither", async () => {
    const path = join(scratch.path, 'together.duckdb');
    const destination = await openDuckdbDestination(path);
    await destination.write([row(1, T1), row(2, T1)], T1);

    const broken = { ...row(4, T2), status: null } as unknown as LoadRow;
    await expect(destination.write([row(3, T2), row(1, T2, { status: 'Delivered' }), broken], T2)).rejects.toThrow(/NOT NULL/);
    await destination.close();
    expect(await readDuckdb(path)).toEqual({ loads: [row(1, T1), row(2, T1)], cursor: T1 });
  });

  it('keeps decimals as served, never lets an older row replace a newer one, and never moves the cursor back', async () => {
    const path = join(scratch.path, 'newest.duckdb');
    const destination = await openDuckdbDestination(path);
    await destination.write([row(1, T2, { miles: '0.10', totalCost: '12345678901234567890123456789012345678901.005' })], T2);
    await destination.write([row(1, T1, { status: 'Cancelled' })], T1);
    expect(await destination.loadCursor()).toBe(T2);
    expect(await destination.readRows(['L1'])).toEqual([row(1, T2, { miles: '0.10', totalCost: '12345678901234567890123456789012345678901.005' })]);
    await destination.close();
  });

  it('keeps instants whatever the time zone of the process that writes and reads (TZ=Asia/Tokyo)', async () => {
    const path = join(scratch.path, 'tokyo.duckdb');
    const entry = new URL('../../dist/destinations.js', import.meta.url).href;
    const script = `const { openDuckdbDestination } = await import(${JSON.stringify(entry)});
      const row = JSON.parse(process.argv[1]);
      const destination = await openDuckdbDestination(${JSON.stringify(path)});
      await destination.write([row], row.updatedAt);
      console.log(JSON.stringify({ cursor: await destination.loadCursor(), rows: await destination.readRows([row.loadNumber]) }));
      await destination.close();`;
    const written = row(1, T1, { scheduledPickupDate: '2026-11-29T23:30:00.000Z' });
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(written)], { env: { ...process.env, TZ: 'Asia/Tokyo' } });

    expect(JSON.parse(stdout)).toEqual({ cursor: T1, rows: [written] });
    expect(await readDuckdb(path)).toEqual({ loads: [written], cursor: T1 });
  });

  it.each([
    ['updated_at', 'TIMESTAMP', /column updated_at is TIMESTAMP, which does not keep the API's value \(TIMESTAMP WITH TIME ZONE does\); fix: sync into a new file/],
    ['miles', 'DECIMAL(10,0)', /column miles is DECIMAL\(10,0\), which does not keep the API's value \(VARCHAR does\)/],
  ])('refuses an existing %s of %s before writing', async (column, type, message) => {
    const path = join(scratch.path, `misfit-${column}.duckdb`);
    await (await openDuckdbDestination(path)).close();
    await withDuckdb(path, true, async (run) => {
      await run(`ALTER TABLE loads DROP COLUMN ${column}`);
      await run(`ALTER TABLE loads ADD COLUMN ${column} ${type}`);
    });

    await expect(openDuckdbDestination(path)).rejects.toThrow(message);
  });

  it.each(['', ':memory:'])('refuses --duckdb %j, which keeps nothing', async (path) => {
    await expect(openDuckdbDestination(path)).rejects.toThrow(`--duckdb ${JSON.stringify(path)} keeps nothing after the run: give the path of a database file`);
  });

  it("writes Parquet with the README's one statement", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const statement = /```sql\n(COPY loads TO 'loads\.parquet'[^\n]*)\n```/.exec(readme)?.[1];
    expect(statement).toBeDefined();
    const path = join(scratch.path, 'parquet.duckdb');
    const destination = await openDuckdbDestination(path);
    await destination.write([row(1, T1, { totalCost: '1234.50' }), row(2, T2)], T2);
    await destination.close();

    const parquet = join(scratch.path, 'loads.parquet');
    const rows = await withDuckdb(path, false, async (run) => {
      await run(statement!.replace("'loads.parquet'", `'${parquet}'`));
      return run(`SELECT load_number, total_cost, updated_at = TIMESTAMPTZ '${T2}' AS latest FROM read_parquet('${parquet}') ORDER BY load_number`);
    });
    expect(rows).toEqual([
      { load_number: 'L1', total_cost: '1234.50', latest: false },
      { load_number: 'L2', total_cost: null, latest: true },
    ]);
  });
});
