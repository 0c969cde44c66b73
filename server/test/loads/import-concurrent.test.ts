// Imports of one customer's loads at the same time, as two ETL jobs or an operator beside a cron job run
// them: each succeeds (an import read from stdin cannot be retried), whatever order its file lists the
// loads in, and the loads end as one of the imports left them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadInput } from '@loadfeed/spec';
import { importLoads } from '../../src/loads/import.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

const LOADS = 2_000;

function file(poNumber: string): LoadInput[] {
  return Array.from({ length: LOADS }, (_, index) => aLoad(`C-${String(index).padStart(5, '0')}`, { poNumber }));
}

describe('concurrent imports of one customer', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('three imports of the same loads at once, one file reversed, all succeed, round after round', async () => {
    for (const round of [1, 2]) {
      const files = [file(`a${round}`), file(`b${round}`), file(`c${round}`).reverse()];
      const summaries = await Promise.all(files.map((rows) => importLoads(app.pool, 'acme', rows.map((value, index) => ({ line: index + 1, value })))));
      for (const summary of summaries) expect(summary.inserted + summary.changed + summary.unchanged).toBe(LOADS);
      // Every load is written by each import in turn: inserted once in the first round, changed by every later write.
      expect(summaries.reduce((sum, summary) => sum + summary.inserted, 0)).toBe(round === 1 ? LOADS : 0);
      const { rows } = await app.pool.query<{ po_number: string; n: number }>(
        "SELECT po_number, count(*)::int AS n FROM loads WHERE load_number LIKE 'C-%' GROUP BY po_number",
      );
      // The loads end as one import left them: the last to write each one; all of them are this round's.
      expect(rows.reduce((sum, row) => sum + row.n, 0)).toBe(LOADS);
      for (const row of rows) expect(row.po_number).toMatch(new RegExp(`^[abc]${round}$`));
    }
  });
});
