// Where a sync keeps its cursor between runs: in memory, in a file (written atomically, so a crash
// mid-write leaves the previous cursor, never half of one), or anything with load() and save().
// The file store loads Node's file system when it is used, not when the SDK is imported: the client and
// the memory store also run in a browser.

export interface CursorStore {
  /** The last saved cursor (an updatedAt date-time), or undefined before the first sync. */
  load(): Promise<string | undefined> | string | undefined;
  save(cursor: string): Promise<void> | void;
}

export function memoryCursorStore(initial?: string): CursorStore & { readonly cursor: string | undefined } {
  let cursor = initial;
  return {
    load: () => cursor,
    save: (next) => {
      cursor = next;
    },
    get cursor() {
      return cursor;
    },
  };
}

interface CursorFile {
  cursor: string;
}

export function fileCursorStore(path: string): CursorStore {
  return {
    async load() {
      const { readFile } = await import('node:fs/promises');
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
      const { replaceFileWithLines } = await import('./atomic-file.js');
      await replaceFileWithLines(path, [JSON.stringify({ cursor } satisfies CursorFile)]);
    },
  };
}
