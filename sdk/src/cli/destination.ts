// Where `loadfeed sync` writes: rows upserted by loadNumber and a cursor that moves only after them.
import type { CursorStore } from '../cursor-store.js';
import type { LoadRow } from '../client.js';

export interface Destination {
  /** Upserts rows by loadNumber; the sync saves the cursor only after this resolves. */
  upsert(rows: LoadRow[]): Promise<void> | void;
  cursorStore: CursorStore;
  /** Leaves the destination complete and consistent and releases it; also after a failure or Ctrl-C. */
  close(): Promise<void>;
}
