// `--out loads.ndjson`: one JSON line per load. Each page is appended and flushed to disk before the
// cursor file is replaced (a file has no transaction: this order keeps the cursor from ever being ahead
// of the rows), so a crash loses nothing the cursor has passed; closing compacts the file to one line per
// loadNumber (the newest) with an atomic rename, so readers see the old file or the new one, never half.
// A run that died before compacting leaves duplicate lines that the next run's close removes.
// A writer holds `<file>.lock` (lock-file.ts) from before it reads the file until after it compacts it:
// two overlapping runs would otherwise each compact their own view over the other's appends.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { CliError } from '@loadfeed/spec/cli';
import { replaceFileWithLines } from '../atomic-file.js';
import type { LoadRow } from '../client.js';
import { fileCursorStore } from '../cursor-store.js';
import type { CopyDestination } from '../destination.js';
import { inSpan, type PickupSpan } from '../removals/copy.js';
import type { DestinationKind } from './kind.js';
import { lockFile, type FileLock } from './lock-file.js';

/** Where `--out` keeps its cursor unless `--state` says otherwise. */
export const defaultStatePath = (out: string) => `${out}.state.json`;

/**
 * Where `--out` lists the loads that left the feed (README "Removals"): one `{"loadNumber","removedAt"}`
 * line each, so that every line of the copy itself keeps the Load shape. A load listed here is still in
 * the copy (unless the sync deletes removed loads) and is dropped from the list when the feed serves it again.
 */
export const removedPath = (out: string) => `${out}.removed.ndjson`;

/**
 * Where `--out` keeps the loads a sync found absent but could not yet make sure of (README "Removals"):
 * one `{"loadNumber","seenAt"}` line each, for the next run to confirm or clear; replaced whole each time.
 */
export const suspectsPath = (out: string) => `${out}.suspects.ndjson`;

export const ndjsonKind: DestinationKind = {
  flag: 'out',
  value: '<file.ndjson>',
  title: 'an NDJSON file',
  help: ['An NDJSON file, one line per load (the newest version of each); the cursor', 'in <file>.state.json (or --state <file>)'],
  extraFlags: { state: { value: '<file>', help: ['With --out: where the cursor is kept'], onlyWith: 'a database keeps its cursor in itself' } },
  open: (path, extras, { write }) => openNdjsonDestination(path, extras.state ?? defaultStatePath(path), { write }),
};

/** Opens (and on the first run creates) the file; with `write: false` it only reads one that exists, for `loadfeed verify`. */
export async function openNdjsonDestination(path: string, statePath: string, options: { write?: boolean } = {}): Promise<CopyDestination> {
  const writing = options.write ?? true;
  if (path.trim() === '') throw new CliError('--out "" keeps nothing: give the path of a file');
  const lock: FileLock | undefined = writing ? await lockFile(path) : undefined;
  try {
    return await openLocked(path, statePath, writing, lock);
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

async function openLocked(path: string, statePath: string, writing: boolean, lock: FileLock | undefined): Promise<CopyDestination> {
  const { lines, needsCompaction, found } = await readExisting(path);
  if (!writing && !found) throw new CliError(`${path} does not exist: run \`loadfeed sync --out ${path}\` first`);
  let dirty = needsCompaction;
  let appender: FileHandle | undefined = needsCompaction || !writing ? undefined : await open(path, 'a');
  const cursorStore = fileCursorStore(statePath);
  const removed = await readListed(removedPath(path), 'removedAt');
  let removedChanged = false;
  const saveRemoved = async () => {
    await replaceFileWithLines(removedPath(path), [...removed].map(([loadNumber, removedAt]) => JSON.stringify({ loadNumber, removedAt })));
    removedChanged = false;
  };
  // Each load's pickup date, read from its line once, for removal detection's counts.
  let pickups: Map<string, string | null> | undefined;
  const pickupsOf = () => {
    pickups ??= new Map([...lines].map(([loadNumber, line]) => [loadNumber, (JSON.parse(line) as LoadRow).scheduledPickupDate]));
    return pickups;
  };
  const current = (span: PickupSpan) => [...pickupsOf()].filter(([loadNumber, pickup]) => !removed.has(loadNumber) && inSpan(span, pickup)).map(([loadNumber]) => loadNumber);

  async function upsert(rows: LoadRow[]): Promise<void> {
    if (appender === undefined) {
      // A torn last line from a crash must not glue onto the next one: start clean first.
      await replaceFileWithLines(path, lines.values());
      dirty = false;
      appender = await open(path, 'a');
    }
    let text = '';
    for (const row of rows) {
      const line = JSON.stringify(row);
      if (lines.has(row.loadNumber)) dirty = true;
      lines.set(row.loadNumber, line);
      pickups?.set(row.loadNumber, row.scheduledPickupDate);
      if (removed.delete(row.loadNumber)) removedChanged = true;
      text += `${line}\n`;
    }
    await appender.write(text);
    await appender.datasync();
  }

  return {
    loadCursor: () => cursorStore.load(),
    async write(rows, cursor) {
      if (!writing) throw new Error(`${path} is open for reading only`);
      if (rows.length > 0) await upsert(rows);
      // A load served again leaves the list before the cursor passes it.
      if (removedChanged) await saveRemoved();
      if (cursor !== undefined) await cursorStore.save(cursor);
    },
    async readRows(wanted) {
      const rows: LoadRow[] = [];
      for (const loadNumber of wanted) {
        const line = lines.get(loadNumber);
        if (line !== undefined) rows.push(JSON.parse(line) as LoadRow);
      }
      return rows;
    },
    async *loadNumbers() {
      yield [...lines.keys()];
    },
    removals: {
      countLoads: (span) => current(span).length,
      listLoads: current,
      latestPickup: () => {
        let latest: string | undefined;
        for (const [loadNumber, pickup] of pickupsOf()) if (pickup !== null && !removed.has(loadNumber) && (latest === undefined || pickup > latest)) latest = pickup;
        return latest;
      },
      async markRemoved(loadNumbers, removedAt, { delete: deleting }) {
        if (!writing) throw new Error(`${path} is open for reading only`);
        if (deleting) {
          for (const loadNumber of loadNumbers) if (lines.delete(loadNumber)) pickups?.delete(loadNumber);
          dirty = true;
          return;
        }
        for (const loadNumber of loadNumbers) if (!removed.has(loadNumber)) removed.set(loadNumber, removedAt);
        await saveRemoved();
      },
      removedAmong: (loadNumbers) => new Set(loadNumbers.filter((loadNumber) => removed.has(loadNumber))),
      loadSuspects: async () => [...(await readListed(suspectsPath(path), 'seenAt'))].map(([loadNumber, seenAt]) => ({ loadNumber, seenAt })),
      async saveSuspects(suspects) {
        if (!writing) throw new Error(`${path} is open for reading only`);
        await replaceFileWithLines(suspectsPath(path), suspects.map(({ loadNumber, seenAt }) => JSON.stringify({ loadNumber, seenAt })));
      },
    },
    async close() {
      try {
        await appender?.close();
        appender = undefined;
        if (writing && dirty) await replaceFileWithLines(path, lines.values());
      } finally {
        await lock?.release();
      }
    },
  };
}

/** The file's loads by loadNumber (a later line wins), and whether the file holds more than one line per load. */
async function readExisting(path: string): Promise<{ lines: Map<string, string>; needsCompaction: boolean; found: boolean }> {
  const lines = new Map<string, string>();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines, needsCompaction: false, found: false };
    throw error;
  }
  const all = text.split('\n');
  // Text after the last newline is a write cut short: its page's cursor was never saved, so it comes again.
  const torn = all.pop() !== '';
  let duplicates = false;
  all.forEach((line, index) => {
    if (line === '') return;
    let loadNumber: unknown;
    try {
      loadNumber = (JSON.parse(line) as Partial<LoadRow>).loadNumber;
    } catch {
      throw new CliError(`${path} line ${index + 1} is not JSON: is this the file an earlier \`loadfeed sync --out\` wrote?`);
    }
    if (typeof loadNumber !== 'string') throw new CliError(`${path} line ${index + 1} has no loadNumber`);
    if (lines.has(loadNumber)) duplicates = true;
    lines.set(loadNumber, line);
  });
  return { lines, needsCompaction: torn || duplicates, found: true };
}


/** A list of loads beside the copy (removed, or suspects): loadNumber -> the instant in `field`; empty when the file is missing. */
async function readListed(path: string, field: 'removedAt' | 'seenAt'): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  const listed = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const entry = JSON.parse(line) as { loadNumber: string } & Record<typeof field, string>;
    listed.set(entry.loadNumber, entry[field]);
  }
  return listed;
}
