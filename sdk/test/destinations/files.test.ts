// The NDJSON file and the SQLite database on their own: what a crash or a kill can leave behind and
// what the next run makes of it.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { LOAD_FIELDS } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { openNdjsonDestination, openSqliteDestination } from '../../src/destinations.js';
import type { LoadRow } from '../../src/index.js';
import { row } from './rows.js';
import { readNdjson, readSqlite } from '../cli/copies.js';
import { useScratchFolder } from '../cli/run-cli.js';

const scratch = useScratchFolder();

const T1 = '2026-11-22T01:00:00.000Z';
const T2 = '2026-11-22T02:00:00.000Z';

describe('the NDJSON file', () => {
  it('holds one line per load after a run that updated loads it already had, the newest version of each', async () => {
    const path = join(scratch.path, 'upsert.ndjson');
    const first = await openNdjsonDestination(path, `${path}.state.json`);
    await first.write([row(1, T1), row(2, T1)], T1);
    await first.close();

    const second = await openNdjsonDestination(path, `${path}.state.json`);
    await second.write([row(2, T2, { status: 'Delivered' }), row(3, T2)], T2);
    await second.close();

    expect(await readNdjson(path)).toEqual([row(1, T1), row(2, T2, { status: 'Delivered' }), row(3, T2)]);
    expect(await second.loadCursor()).toBe(T2);
  });

  it('a run killed before it compacted leaves duplicate lines that the next run removes', async () => {
    const path = join(scratch.path, 'killed.ndjson');
    await writeFile(path, [row(1, T1), row(2, T1), row(1, T2, { miles: '9.5' })].map((load) => `${JSON.stringify(load)}\n`).join(''));

    const next = await openNdjsonDestination(path, `${path}.state.json`);
    await next.close();

    expect(await readNdjson(path)).toEqual([row(1, T2, { miles: '9.5' }), row(2, T1)]);
  });

  it('a line cut short by a crash is dropped (its cursor was never saved) and the next page starts on a line of its own', async () => {
    const path = join(scratch.path, 'torn.ndjson');
    await writeFile(path, `${JSON.stringify(row(1, T1))}\n`);
    await appendFile(path, JSON.stringify(row(2, T2)).slice(0, 40));

    const next = await openNdjsonDestination(path, `${path}.state.json`);
    await next.write([row(2, T2)], undefined);
    await next.close();

    expect(await readNdjson(path)).toEqual([row(1, T1), row(2, T2)]);
    expect((await readFile(path, 'utf8')).endsWith('\n')).toBe(true);
  });

  it('a file that is not NDJSON is left alone, with the line that is not JSON named', async () => {
    const path = join(scratch.path, 'notes.ndjson');
    await writeFile(path, `${JSON.stringify(row(1, T1))}\nmy notes\n`);

    await expect(openNdjsonDestination(path, `${path}.state.json`)).rejects.toThrow(`${path} line 2 is not JSON`);
    expect(await readFile(path, 'utf8')).toBe(`${JSON.stringify(row(1, T1))}\nmy notes\n`);
  });
});

describe('the SQLite database', () => {
  it("commits a page's rows and the cursor together: a page whose write fails part-way leaves neither", async () => {
    const path = join(scratch.path, 'together.db');
    const destination = await openSqliteDestination(path);
    await destination.write([row(1, T1), row(2, T1)], T1);

    const broken = { ...row(4, T2), loadNumber: null } as unknown as LoadRow;
    expect(() => destination.write([row(3, T2), row(1, T2, { status: 'Delivered' }), broken], T2)).toThrow();
    expect(readSqlite(path)).toEqual({ loads: [row(1, T1), row(2, T1)], cursor: T1 });

    await destination.write([row(3, T2), row(1, T2, { status: 'Delivered' })], T2);
    expect(readSqlite(path)).toEqual({ loads: [row(1, T2, { status: 'Delivered' }), row(2, T1), row(3, T2)], cursor: T2 });
    await destination.close();
  });

  it('keeps decimal strings as written and the cursor across runs', async () => {
    const path = join(scratch.path, 'again.db');
    const first = await openSqliteDestination(path);
    await first.write([row(1, T1, { miles: '0.10', totalCost: '1200.00' })], T1);
    await first.close();

    const second = await openSqliteDestination(path);
    expect(await second.loadCursor()).toBe(T1);
    await second.close();
    expect(readSqlite(path).loads[0]).toMatchObject({ miles: '0.10', totalCost: '1200.00' });
  });
});

describe('the SQLite database, rewritten by an older page or found with other columns', () => {
  it('never lets an older version of a row replace a newer one, nor moves the cursor back (two overlapping writers)', async () => {
    const path = join(scratch.path, 'overlap.db');
    const destination = await openSqliteDestination(path);
    await destination.write([row(1, T2, { status: 'Delivered' })], T2);
    await destination.write([row(1, T1), row(2, T1)], T1);
    await destination.close();

    expect(readSqlite(path)).toEqual({ loads: [row(1, T2, { status: 'Delivered' }), row(2, T1)], cursor: T2 });
  });

  it('refuses a table whose decimal column would turn 1234.50 into 1234.5, naming the column, before writing', async () => {
    const path = join(scratch.path, 'numeric.db');
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => { exec(sql: string): void; close(): void };
    const db = new Database(path);
    db.exec(`CREATE TABLE loads (${LOAD_FIELDS.map((field) => `"${field}" ${field === 'miles' ? 'REAL' : 'TEXT'}${field === 'loadNumber' ? ' PRIMARY KEY' : ''}`).join(', ')})`);
    db.close();

    await expect(openSqliteDestination(path)).rejects.toThrow(/^the table loads cannot hold the copy: column "miles" is REAL, which changes the API's text \(1234\.50 becomes 1234\.5\); fix: /);
    const Reader = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => { prepare(sql: string): { all(): unknown[] }; close(): void };
    const reader = new Reader(path);
    expect(reader.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all()).toEqual([{ name: 'loads' }]);
    reader.close();
  });
});
