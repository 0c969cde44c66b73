// The cursor stores of runtimes with a file system: in memory (memory-cursor-store.ts) or in a file,
// written atomically, so that a crash mid-write leaves the previous cursor, never half of one. Only the
// Node entry (index.ts) exports the file store: the web entry (web.ts) imports no Node module.
import { readFile } from 'node:fs/promises';
import { replaceFileWithLines } from './atomic-file.js';
import type { CursorStore } from './memory-cursor-store.js';

export { memoryCursorStore, type CursorStore } from './memory-cursor-store.js';

interface CursorFile {
  cursor: string;
}

export function fileCursorStore(path: string): CursorStore {
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const parsed = JSON.parse(text) as Partial<CursorFile>;
      if (typeof parsed.cursor !== 'string') throw new Error(`${path} holds no cursor`);
      return parsed.cursor;
    },
    async save(cursor) {
      await replaceFileWithLines(path, [JSON.stringify({ cursor } satisfies CursorFile)]);
    },
  };
}
