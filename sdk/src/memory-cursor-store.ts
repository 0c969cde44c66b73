// Where a sync keeps its cursor between runs, and the store that keeps it in memory: what every runtime
// has, browsers and workers included. The file store is Node's (cursor-store.ts).

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
