// `--out loads.ndjson`: one JSON line per load. Each page is appended and flushed to disk before the
// cursor moves, so a crash loses nothing the cursor has passed; closing compacts the file to one line per
// loadNumber (the newest) with an atomic rename, so readers see the old file or the new one, never half.
// A run that died before compacting leaves duplicate lines that the next run's close removes.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { CliError } from '@loadfeed/spec/cli';
import { replaceFileWithLines } from '../atomic-file.js';
import type { LoadRow } from '../client.js';
import { fileCursorStore } from '../cursor-store.js';
import type { Destination } from './destination.js';

export async function openNdjsonDestination(path: string, statePath: string): Promise<Destination> {
  const { lines, needsCompaction } = await readExisting(path);
  let dirty = needsCompaction;
  let appender: FileHandle | undefined = needsCompaction ? undefined : await open(path, 'a');

  return {
    cursorStore: fileCursorStore(statePath),
    async upsert(rows) {
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
        text += `${line}\n`;
      }
      await appender.write(text);
      await appender.datasync();
    },
    async close() {
      await appender?.close();
      appender = undefined;
      if (dirty) await replaceFileWithLines(path, lines.values());
    },
  };
}

/** The file's loads by loadNumber (a later line wins), and whether the file holds more than one line per load. */
async function readExisting(path: string): Promise<{ lines: Map<string, string>; needsCompaction: boolean }> {
  const lines = new Map<string, string>();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines, needsCompaction: false };
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
  return { lines, needsCompaction: torn || duplicates };
}

