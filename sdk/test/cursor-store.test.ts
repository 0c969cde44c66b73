import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileCursorStore, memoryCursorStore } from '../src/index.js';

describe('memoryCursorStore', () => {
  it('returns what was saved last', async () => {
    const store = memoryCursorStore();
    expect(await store.load()).toBeUndefined();
    await store.save('2026-01-01T00:00:00.000Z');
    await store.save('2026-01-02T00:00:00.000Z');
    expect(await store.load()).toBe('2026-01-02T00:00:00.000Z');
  });
});

describe('fileCursorStore', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'loadfeed-cursor-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('has no cursor before the first save', async () => {
    expect(await fileCursorStore(join(folder, 'cursor.json')).load()).toBeUndefined();
  });

  it('keeps the cursor across store instances (process restarts)', async () => {
    const path = join(folder, 'cursor.json');
    await fileCursorStore(path).save('2026-03-04T05:06:07.089Z');
    expect(await fileCursorStore(path).load()).toBe('2026-03-04T05:06:07.089Z');
  });

  it('writes through a temporary file and a rename: no partial file is ever visible, none is left behind', async () => {
    const path = join(folder, 'cursor.json');
    const store = fileCursorStore(path);
    const cursors = Array.from({ length: 50 }, (_, index) => new Date(Date.UTC(2026, 0, 1) + index).toISOString());
    const reads: (string | undefined)[] = [];
    await Promise.all([
      (async () => {
        for (const cursor of cursors) await store.save(cursor);
      })(),
      (async () => {
        for (let index = 0; index < 50; index += 1) reads.push(await Promise.resolve(store.load()).catch(() => 'unreadable'));
      })(),
    ]);
    expect(reads.filter((read) => read !== undefined && !cursors.includes(read))).toEqual([]);
    expect(await readdir(folder)).toEqual(['cursor.json']);
    expect(await store.load()).toBe(cursors.at(-1));
  });

  it('a file that holds no cursor is an error, not a silent fresh start', async () => {
    const path = join(folder, 'cursor.json');
    await writeFile(path, '{"something":"else"}');
    await expect(fileCursorStore(path).load()).rejects.toThrow(/no cursor/);
  });
});
