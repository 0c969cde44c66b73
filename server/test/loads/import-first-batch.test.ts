// The importer's first batch is small (src/loads/import.ts, FIRST_BATCH_SHARE): PostgreSQL starts writing
// while Node reads the rest, instead of waiting for a whole batch (~17,000 loads) to be read first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_CHARACTERS, importLoadLines, type ImportLine } from '../../src/loads/import.js';
import { IMPORT_LOCK_CLASS } from '../../src/loads/import-sql.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

/** Whether an import holds its customer's turn: taken right before its first batch is upserted. */
const UPSERTING_SQL = `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objsubid = 2 AND granted`;

describe('the first batch of an import', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is upserted while the input is still being read, long before a whole batch is', async () => {
    const upserting = async () => (await app.pool.query<{ n: number }>(UPSERTING_SQL, [IMPORT_LOCK_CLASS])).rows[0]!.n > 0;
    // A batch holds BATCH_CHARACTERS of COPY text, a load here ~150 characters of it: this many loads is a
    // tenth of a batch, and more than the first batch.
    const before = Math.ceil(BATCH_CHARACTERS / 150 / 10);
    let seenWhileReading = false;
    async function* lines(): AsyncGenerator<ImportLine> {
      for (let line = 1; line <= before; line++) yield { line, value: aLoad(`F-${line}`) };
      for (let attempt = 0; attempt < 200 && !seenWhileReading; attempt++) {
        seenWhileReading = await upserting();
        if (!seenWhileReading) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      yield { line: before + 1, value: aLoad('F-last') };
    }
    const { summary } = await importLoadLines(app.pool, 'acme', lines());
    expect(seenWhileReading).toBe(true);
    expect(summary.inserted).toBe(before + 1);
  });
});
