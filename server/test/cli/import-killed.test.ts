import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateLoads } from '../../src/seed/loads.js';
import { useScratchFolder, useTestDatabase } from '../../src/testing/vitest.js';
import { CLI, cliEnv, cliOk, query } from './run-cli.js';

const ROWS = 12_000;
/** A writer of the customer's loads is in flight: its announcement (migrations/0006_settled-feed.sql, 0012). */
const WRITING_SQL = `
SELECT 1 FROM feed_writers(clock_timestamp()) AS w
 WHERE w.slot = feed_writer_slot((SELECT id FROM customers WHERE code = $1::text))`;

// DECISIONS.md: an import is all or nothing even when it is killed part-way: nothing of it is visible
// until all of it is. Re-running the same file is harmless.
describe('loadfeed-server import, killed part-way', () => {
  const database = useTestDatabase();
  const scratch = useScratchFolder();
  const env = () => ({ DATABASE_URL: database.url });
  const rowsOf = async (customer: string) =>
    Number((await query<{ n: string }>(database.url, 'SELECT count(*) AS n FROM loads AS l JOIN customers AS c ON c.id = l.customer_id WHERE c.code = $1::text', [customer]))[0]!.n);
  const fileOf = async (customer: string) => {
    const path = join(scratch.path, `${customer}.ndjson`);
    await writeFile(path, [...generateLoads({ seed: 'killed', customerCode: customer, count: ROWS, asOf: new Date() })].map((load) => JSON.stringify(load)).join('\n'));
    return path;
  };

  beforeAll(async () => {
    await cliOk(['migrate'], { env: env() });
    await cliOk(['customers', 'add', 'killed'], { env: env() });
  });

  it('leaves no row when killed with SIGKILL half-way, and the same import twice changes nothing the second time', async () => {
    const path = await fileOf('killed');
    const child = spawn(process.execPath, [CLI, 'import', 'killed', path], { env: cliEnv(env()), stdio: 'ignore' });
    const exited = once(child, 'exit');
    // Killed as soon as the import writes: its writer lock is announced at its first row, while its one
    // upsert statement runs, and nothing of it is visible until that commits. (Waiting longer let a fast
    // upsert commit first.)
    for (;;) {
      expect(await rowsOf('killed'), 'the import committed before it could be killed').toBe(0);
      if ((await query(database.url, WRITING_SQL, ['killed'])).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    await exited;
    expect(await rowsOf('killed')).toBe(0);
    // The backend notices its client is gone and rolls back; still nothing, then or after.
    await expect.poll(() => query(database.url, "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'INSERT INTO loads%' AND pid <> pg_backend_pid()"), { timeout: 20_000 }).toEqual([]);
    expect(await rowsOf('killed')).toBe(0);

    // (The generated loads include some outside the window, which a second line counts.)
    expect(await cliOk(['import', 'killed', path], { env: env() })).toMatch(new RegExp(`^imported for killed: ${ROWS} inserted, 0 changed, 0 unchanged\n`));
    const stamps = await query(database.url, "SELECT load_number, updated_at FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = 'killed') ORDER BY load_number");
    expect(await cliOk(['import', 'killed', path], { env: env() })).toMatch(new RegExp(`^imported for killed: 0 inserted, 0 changed, ${ROWS} unchanged\n`));
    expect(await query(database.url, "SELECT load_number, updated_at FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = 'killed') ORDER BY load_number")).toEqual(stamps);
  }, 180_000);
});
