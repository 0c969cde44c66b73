// The SQLite destination's guarantees under this runtime's own SQLite (node:sqlite or bun:sqlite), as
// test/destinations/ checks them with better-sqlite3 on Node 20: each check's outcome (or its error) as
// JSON on stdout, for matrix.test.ts to compare. The copies are left in LOADFEED_FOLDER to be read back.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { LOAD_FIELDS } from '@loadfeed/spec';
import { openSqliteDestination } from '@loadfeed/sdk/destinations';
import { openConnection } from './sqlite-connection.mjs';

const folder = process.env.LOADFEED_FOLDER;
const [T0, T1, T2, T3] = ['2026-11-22T00:00:00.000Z', '2026-11-22T01:00:00.000Z', '2026-11-22T02:00:00.000Z', '2026-11-22T03:00:00.000Z'];

/** A load as the API serves it (test/destinations/rows.ts). */
const row = (n, updatedAt, overrides = {}) => ({
  ...Object.fromEntries(LOAD_FIELDS.map((field) => [field, null])),
  loadNumber: `L${n}`,
  originCity: 'Dallas',
  originState: 'TX',
  status: 'Available',
  scheduledPickupDate: '2026-11-29T00:00:00.000Z',
  miles: '1234.50',
  updatedAt,
  ...overrides,
});

/** The copy as another connection sees it: every column of every row (removedAt and suspectedAt included), and the cursor. */
async function contents(path) {
  const db = await openConnection(path);
  try {
    const cursor = db.all('SELECT cursor FROM loadfeed_sync WHERE id = 1')[0]?.cursor;
    return { loads: db.all('SELECT * FROM loads ORDER BY "loadNumber"'), cursor };
  } finally {
    db.close();
  }
}

const errorOf = async (promise) => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error.message;
  }
};

const checks = {
  /** files.test.ts: a page whose write fails part-way leaves neither its rows nor its cursor. */
  async rollback() {
    const path = join(folder, 'rollback.db');
    const destination = await openSqliteDestination(path);
    try {
      destination.write([row(1, T1), row(2, T1)], T1);
      let threw = false;
      try {
        destination.write([row(3, T2), row(1, T2, { status: 'Delivered' }), { ...row(4, T2), loadNumber: null }], T2);
      } catch {
        threw = true;
      }
      const afterFailure = await contents(path);
      destination.write([row(3, T2), row(1, T2, { status: 'Delivered' })], T2);
      return { threw, afterFailure, afterRetry: await contents(path) };
    } finally {
      await destination.close();
    }
  },

  /** files.test.ts: an older version of a row (an overlapping page) never replaces a newer one, nor moves the cursor back. */
  async olderRow() {
    const path = join(folder, 'older.db');
    const destination = await openSqliteDestination(path);
    try {
      destination.write([row(1, T2, { status: 'Delivered' })], T2);
      destination.write([row(1, T1), row(2, T1)], T1);
    } finally {
      await destination.close();
    }
    return contents(path);
  },

  /** locks.test.ts: a second writer of the same file is refused while the first writes, and the first goes on. */
  async secondWriter() {
    const path = join(folder, 'held.db');
    const first = await openSqliteDestination(path);
    let refused;
    try {
      refused = await errorOf(openSqliteDestination(path));
      first.write([row(1, T1)], T1);
    } finally {
      await first.close();
    }
    const again = await openSqliteDestination(path);
    const cursor = await again.loadCursor();
    await again.close();
    return { refused, cursor, lockLeft: existsSync(`${path}.lock`) };
  },

  /**
   * Another connection holding the write lock: the page's write, begun while it is held, waits for it
   * (busy_timeout) and commits after it is released, where SQLITE_BUSY would otherwise be thrown at once.
   * Times from both threads' Date.now(), so that a main thread slow to hear 'held' cannot fake a wait.
   */
  async busyWriter() {
    const path = join(folder, 'busy.db');
    const destination = await openSqliteDestination(path);
    try {
      destination.write([row(1, T1)], T1);
      const holdMs = 1000;
      const holder = new Worker(new URL('./hold-write-lock.mjs', import.meta.url), { workerData: { path, holdMs, cursor: T0 } });
      const released = new Promise((resolve, reject) => {
        holder.on('error', reject);
        holder.on('message', (message) => message.releasedAt !== undefined && resolve(message.releasedAt));
      });
      await new Promise((resolve, reject) => {
        holder.once('error', reject);
        holder.on('message', (message) => message === 'held' && resolve());
      });
      const startedAt = Date.now();
      let error;
      try {
        destination.write([row(2, T3)], T3);
      } catch (thrown) {
        error = thrown.message;
      }
      const endedAt = Date.now();
      const releasedAt = await released;
      await holder.terminate();
      return { error, begunWhileHeld: startedAt < releasedAt, endedAfterRelease: endedAt >= releasedAt, contents: await contents(path) };
    } finally {
      await destination.close();
    }
  },

  /** removals.test.ts and suspects.test.ts, through the copy's side of removal detection: marks, deletes, suspects, and a write that unmarks. */
  async removals() {
    const path = join(folder, 'removals.db');
    const destination = await openSqliteDestination(path);
    const { removals } = destination;
    try {
      destination.write([row(1, T1), row(2, T1), row(3, T1, { scheduledPickupDate: null }), row(4, T1, { scheduledPickupDate: '2026-12-05T00:00:00.000Z' })], T1);
      const all = { from: Date.parse('2026-11-01T00:00:00.000Z'), before: undefined };
      const week = { from: Date.parse('2026-11-29T00:00:00.000Z'), before: Date.parse('2026-12-01T00:00:00.000Z') };
      const counted = { all: await removals.countLoads(all), week: await removals.countLoads(week), none: await removals.countLoads('none'), latest: await removals.latestPickup() };
      await removals.markRemoved(['L2', 'L4'], T2, { delete: false });
      const afterMark = {
        all: await removals.countLoads(all),
        listed: [...(await removals.listLoads(all))].sort(),
        latest: await removals.latestPickup(),
        removedAmong: [...(await removals.removedAmong(['L1', 'L2', 'L4']))].sort(),
      };
      await removals.saveSuspects([{ loadNumber: 'L1', seenAt: T2 }, { loadNumber: 'L3', seenAt: T2 }]);
      const suspects = await removals.loadSuspects();
      const marked = await contents(path);
      // The feed serves L2 and L3 again: the write unmarks the one and clears the other's suspicion.
      destination.write([row(2, T3), row(3, T3, { scheduledPickupDate: null })], T3);
      const afterWrite = { removedAmong: [...(await removals.removedAmong(['L2', 'L4']))], suspects: await removals.loadSuspects() };
      await removals.markRemoved(['L4'], T3, { delete: true });
      return { counted, afterMark, suspects, marked, afterWrite, final: await contents(path) };
    } finally {
      await destination.close();
    }
  },

  /** files.test.ts: a table whose decimal column is REAL (1234.50 would read 1234.5) is refused before anything is written. */
  async realColumn() {
    const path = join(folder, 'real.db');
    const db = await openConnection(path);
    db.exec(`CREATE TABLE loads (${LOAD_FIELDS.map((field) => `"${field}" ${field === 'miles' ? 'REAL' : 'TEXT'}${field === 'loadNumber' ? ' PRIMARY KEY' : ''}`).join(', ')})`);
    db.close();
    const refused = await errorOf(openSqliteDestination(path));
    const after = await openConnection(path);
    const tables = after.all(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map((table) => table.name);
    after.close();
    return { refused, tables, lockLeft: existsSync(`${path}.lock`) };
  },

  /** removals.test.ts: a copy made before removals (no removedAt, no suspectedAt) gains both on its next run, every row and the cursor kept. */
  async oldLayout() {
    const path = join(folder, 'old.db');
    const db = await openConnection(path);
    db.exec(`CREATE TABLE loads ("loadNumber" TEXT PRIMARY KEY NOT NULL, ${LOAD_FIELDS.filter((field) => field !== 'loadNumber').map((field) => `"${field}" TEXT`).join(', ')})`);
    db.exec('CREATE TABLE loadfeed_sync (id INTEGER PRIMARY KEY CHECK (id = 1), cursor TEXT NOT NULL)');
    const old = row(1, T1);
    db.exec(`INSERT INTO loads (${LOAD_FIELDS.map((field) => `"${field}"`).join(', ')}) VALUES (${LOAD_FIELDS.map((field) => (old[field] === null ? 'NULL' : `'${old[field]}'`)).join(', ')})`);
    db.exec(`INSERT INTO loadfeed_sync (id, cursor) VALUES (1, '${T1}')`);
    db.close();
    const destination = await openSqliteDestination(path);
    try {
      const cursor = await destination.loadCursor();
      const hasRemovals = typeof destination.removals?.markRemoved === 'function' && typeof destination.removals?.saveSuspects === 'function';
      destination.write([row(2, T2)], T2);
      await destination.removals.markRemoved(['L2'], T2, { delete: false });
      return { cursor, hasRemovals, contents: await contents(path) };
    } finally {
      await destination.close();
    }
  },
};

const outcome = {};
for (const [name, check] of Object.entries(checks)) {
  try {
    outcome[name] = await check();
  } catch (error) {
    outcome[name] = { failed: String(error && error.stack ? error.stack : error) };
  }
}
console.log(JSON.stringify(outcome));
