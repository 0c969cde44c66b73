// A worker thread that takes the database's write lock (BEGIN IMMEDIATE), says so, holds it for
// `holdMs` and commits, saying when: the destination's write in the main thread meanwhile must wait for it.
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './sqlite-connection.mjs';

const db = await openConnection(workerData.path);
db.exec('BEGIN IMMEDIATE');
db.exec(`INSERT INTO loadfeed_sync (id, cursor) VALUES (1, '${workerData.cursor}') ON CONFLICT (id) DO UPDATE SET cursor = excluded.cursor`);
parentPort.postMessage('held');
setTimeout(() => {
  db.exec('COMMIT');
  const releasedAt = Date.now();
  db.close();
  parentPort.postMessage({ releasedAt });
}, workerData.holdMs);
