// examples/operator-quickstart, run as an operator runs it on an empty database: it ends with a customer,
// a key saved to a private file (never printed), the sample loads imported and a first call that
// returns them; the key then works against the server on that database.
import { execFileSync } from 'node:child_process';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import type { Load, LoadPage } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, byLoadNumber, freePort, run, useScratchFolder } from './support.js';

const database = useTestDatabase();
const scratch = useScratchFolder();

const SAMPLE = join(EXAMPLES, 'operator-quickstart', 'sample-loads.mjs');

/** The sample loads as the generator writes them today: every one is inside the feed's window. */
async function sampleInWindow(): Promise<Omit<Load, 'updatedAt'>[]> {
  const lines = execFileSync(process.execPath, [SAMPLE], { encoding: 'utf8' }).split('\n').filter((line) => line !== '');
  return lines.map((line) => JSON.parse(line) as Omit<Load, 'updatedAt'>);
}

const withoutUpdatedAt = ({ updatedAt: _updatedAt, ...load }: Load) => load;

describe('examples/operator-quickstart', () => {
  it('goes from an empty database to a customer, a private key file, imported loads and a first curl that returns them', async () => {
    const port = await freePort();

    const result = await run('bash', [join(EXAMPLES, 'operator-quickstart', 'quickstart.sh')], {
      cwd: scratch.path,
      env: { DATABASE_URL: database.url, PORT: String(port) },
    });

    expect(result.code, result.stdout + result.stderr).toBe(0);
    const keyFile = join(scratch.path, 'acme.key');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const key = await readFile(keyFile, 'utf8');
    expect(key).toMatch(/^lf_live_\S+$/);
    expect(result.stdout + result.stderr).not.toContain(key);

    const expected = await sampleInWindow();
    expect(expected).toHaveLength(8);
    expect(result.stdout).toContain('imported for acme: 8 inserted, 0 changed, 0 unchanged\n');
    expect(result.stdout).not.toContain('not served');
    const firstCall = result.stdout.split('\n').find((line) => line.startsWith('{"data"'));
    expect(firstCall, result.stdout).toBeDefined();
    const page = JSON.parse(firstCall!) as LoadPage;
    expect(page.totalCount).toBe(expected.length);
    expect(page.pageSize).toBe(3);
    for (const load of page.data) expect(expected).toContainEqual(withoutUpdatedAt(load));

    // The server the operator started is stopped; the key and the loads stay in the database.
    const server = await startTestServer({ databaseUrl: database.url });
    try {
      const response = await fetch(`${server.baseUrl}/api/v1/loads?pageSize=100`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      const all = (await response.json()) as LoadPage;
      expect(byLoadNumber(all.data.map(withoutUpdatedAt))).toEqual(byLoadNumber(expected));
    } finally {
      await server.stop();
    }
  });

  it('runs again on the same database, from its own folder as README says, keeping the customer and the key, and leaves nothing untracked for git', async () => {
    const folder = join(EXAMPLES, 'operator-quickstart');
    const keyFile = join(folder, 'acme.key');
    const untracked = async () => (await run('git', ['status', '--porcelain', '--untracked-files=all', '--', '.'], { cwd: folder })).stdout;
    const before = await untracked();
    try {
      const first = await run('bash', ['./quickstart.sh'], { cwd: folder, env: { DATABASE_URL: database.url, PORT: String(await freePort()) } });
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const key = await readFile(keyFile, 'utf8');
      const second = await run('bash', ['./quickstart.sh'], { cwd: folder, env: { DATABASE_URL: database.url, PORT: String(await freePort()) } });
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(second.stdout).toContain("customer 'acme' exists already: kept");
      expect(second.stdout).toContain('is issued and not revoked: kept');
      expect(await readFile(keyFile, 'utf8')).toBe(key);
      expect(second.stdout).toMatch(/^\{"data":\[/m);
      expect(await untracked()).toBe(before);
    } finally {
      await rm(keyFile, { force: true });
    }
  });

  it('without DATABASE_URL it stops before doing anything, naming the variable', async () => {
    const result = await run('bash', [join(EXAMPLES, 'operator-quickstart', 'quickstart.sh')], { cwd: scratch.path });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/DATABASE_URL: set DATABASE_URL to an empty PostgreSQL database/);
  });
});
