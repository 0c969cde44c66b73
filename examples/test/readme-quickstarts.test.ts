// The three quickstarts of README.md, run as written from this checkout (./readme.ts says how a block
// runs); ./packed-install.test.ts runs them again from a project outside it, on the packed tarballs.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { LOAD_FIELDS, type LoadPage } from '@loadfeed/spec';
import { checkLoadPage } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksOf, commandsOf, runSection } from './readme.js';
import { query } from './sqlite.js';
import { CHECKOUT, freePort, useReferenceServer } from './support.js';

/** A folder inside the checkout (so `npx` and `import '@loadfeed/sdk'` find the installed kit), removed after the file. */
function useFolderInCheckout(): { readonly path: string } {
  const path = join(CHECKOUT, '.loadfeed', `readme-test-${randomBytes(4).toString('hex')}`);
  beforeAll(() => mkdir(path, { recursive: true }));
  afterAll(() => rm(path, { recursive: true, force: true }));
  return { path };
}

const lastJsonLine = (output: string): unknown => JSON.parse(output.trim().split('\n').at(-1)!);

describe('README.md quickstarts', () => {
  it('marks runnable blocks in each of the three quickstarts', () => {
    expect(blocksOf('operator-embedded')).toHaveLength(1);
    expect(blocksOf('operator').length).toBeGreaterThanOrEqual(3);
    expect(blocksOf('customer').length).toBeGreaterThanOrEqual(3);
    expect(blocksOf('third-party')).toHaveLength(1);
    expect(blocksOf('server-embedded')).toHaveLength(1);
  });

  describe('operator', () => {
    const folder = useFolderInCheckout();
    const database = useTestDatabase();

    it("npm start on a fresh embedded database prints a demo key and a curl command that works as pasted; server/README's export line reaches its database", async () => {
      const port = await freePort();
      // The printed curl is run as it stands, while the server still runs; then server/README's block,
      // from the folder whose .loadfeed/ the server uses (a clone's root, for a user).
      const whileItRuns = [
        'eval "$(grep -m1 -E "^ *curl " "$WORK/background.log")" > "$WORK/first-call.json"',
        'cd "$WORK"',
        commandsOf('server-embedded'),
        'printf %s "$DATABASE_URL" > "$WORK/made-url"',
      ].join('\n');
      const result = await runSection('operator-embedded', { cwd: CHECKOUT, work: folder.path, env: { PORT: String(port), LOADFEED_DATA_DIR: join(folder.path, '.loadfeed') }, after: whileItRuns });
      const page = JSON.parse(await readFile(join(folder.path, 'first-call.json'), 'utf8')) as LoadPage;
      expect(checkLoadPage(page)).toEqual([]);
      expect(page.data).toHaveLength(5);
      expect(page.totalCount).toBeGreaterThan(5);
      // keys list on the embedded database: the demo key, by its hint.
      expect(result.stdout).toMatch(/^ID\s+CUSTOMER\s+HINT/m);
      expect(result.stdout).toMatch(/\sdemo\s+lf_live_…\w{4}\s/);
      // The export line the banner printed is the one the block makes from credentials.json.
      const printed = /export DATABASE_URL='([^']+)'/.exec(await readFile(join(folder.path, 'background.log'), 'utf8'))?.[1];
      expect(printed).toMatch(/^postgres:\/\/postgres:.+@127\.0\.0\.1:\d+\/postgres$/);
      expect(await readFile(join(folder.path, 'made-url'), 'utf8')).toBe(printed);
    }, 240_000);

    it('with DATABASE_URL: migrate, a customer, an import, a key, start, and a curl that returns the loads', async () => {
      const port = await freePort();
      const result = await runSection('operator', { cwd: CHECKOUT, work: folder.path, env: { PORT: String(port), DATABASE_URL: database.url } });
      const page = lastJsonLine(result.stdout) as LoadPage;
      expect(checkLoadPage(page)).toEqual([]);
      expect(page.pageSize).toBe(2);
      expect(page.data).toHaveLength(2);
      expect(result.stdout + result.stderr).not.toMatch(/lf_live_/);
    }, 240_000);
  });

  describe('customer developer and third party', () => {
    const reference = useReferenceServer();
    const folder = useFolderInCheckout();
    let env: Record<string, string>;
    let loads: number;
    beforeAll(async () => {
      ({ env, loads } = await reference.quickstartCustomer(40));
    });

    it('loadfeed list, loadfeed sync --sqlite, and the syncLoads snippet copy every load', async () => {
      const result = await runSection('customer', { cwd: folder.path, work: folder.path, env });
      const copied = query(join(folder.path, 'loads.db'), 'SELECT * FROM loads') as Record<string, unknown>[];
      expect(copied).toHaveLength(loads);
      expect(Object.keys(copied[0]!).length).toBeGreaterThanOrEqual(LOAD_FIELDS.length);
      expect(result.stdout).toContain(`${loads} rows in`);
      expect(JSON.parse(await readFile(join(folder.path, 'loadfeed-cursor.json'), 'utf8'))).toBeTruthy();
      expect(result.stdout + result.stderr).not.toContain(env.LOADFEED_API_KEY);
    }, 240_000);

    it('loadfeed-conformance passes and writes its reports', async () => {
      const result = await runSection('third-party', { cwd: folder.path, work: folder.path, env });
      expect(result.stdout + result.stderr).not.toContain(env.LOADFEED_API_KEY);
      const report = JSON.parse(await readFile(join(folder.path, 'conformance-report', 'report.json'), 'utf8')) as { stats: { unexpected: number; expected: number } };
      expect(report.stats.unexpected).toBe(0);
      expect(report.stats.expected).toBeGreaterThan(20);
    }, 300_000);
  });
});
