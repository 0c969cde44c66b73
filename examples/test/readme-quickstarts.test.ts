// The three quickstarts of README.md, run as written. Every code block marked
// `<!-- readme-test: <section> [background] [file=<name>] -->` is taken in order: a `file=` block is saved
// under that name, a `background` block is started as its own process group (as a terminal runs it) and
// waited for on /readyz, and every other block runs in one bash session per section, stopping at the first
// failing command. The only change made to a command is the port: `127.0.0.1:3000` becomes the free port
// the test chose, and PORT says the same to the server.
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { LOAD_FIELDS, checkLoadPage, type LoadPage } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from './sqlite.js';
import { EXAMPLES, freePort, run, useReferenceServer, type RunResult } from './support.js';

const REPO = resolve(EXAMPLES, '..');

interface Block {
  section: string;
  background: boolean;
  file: string | undefined;
  code: string;
}

function readmeBlocks(): Block[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const marked = /<!-- readme-test: ([\w-]+)((?: [\w=.-]+)*) -->\n```\w*\n([\s\S]*?)```/g;
  return [...readme.matchAll(marked)].map(([, section, flags = '', code = '']) => {
    const words = flags.trim().split(/\s+/);
    return {
      section: section!,
      background: words.includes('background'),
      file: words.find((word) => word.startsWith('file='))?.slice('file='.length),
      code,
    };
  });
}

const blocks = readmeBlocks();
const blocksOf = (section: string) => blocks.filter((block) => block.section === section);

/** One bash session for a section: its commands in order, a background block as a job that is interrupted at the end. */
function scriptFor(section: string, after = ''): string {
  const lines = ['set -euo pipefail', 'stop_background() { if [ -n "${BACKGROUND:-}" ]; then kill -INT -- "-$BACKGROUND" 2>/dev/null || true; wait "$BACKGROUND" 2>/dev/null || true; fi; }', 'trap stop_background EXIT'];
  for (const block of blocksOf(section)) {
    if (block.file) continue;
    const code = block.code.replaceAll('127.0.0.1:3000', '127.0.0.1:$PORT');
    if (block.background) {
      lines.push(
        'set -m',
        `( ${code.trim()} ) > "$WORK/background.log" 2>&1 &`,
        'BACKGROUND=$!',
        'set +m',
        'for attempt in $(seq 1 480); do curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null && break; kill -0 "$BACKGROUND" 2> /dev/null || { cat "$WORK/background.log" >&2; exit 1; }; sleep 0.25; done',
        'curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null',
      );
    } else {
      lines.push(code);
    }
  }
  lines.push(after);
  return lines.join('\n');
}

/** A folder inside the checkout (so `npx` and `import '@loadfeed/sdk'` find the installed kit), removed after the file. */
function useFolderInCheckout(): { readonly path: string } {
  const path = join(REPO, '.loadfeed', `readme-test-${randomBytes(4).toString('hex')}`);
  beforeAll(() => mkdir(path, { recursive: true }));
  afterAll(() => rm(path, { recursive: true, force: true }));
  return { path };
}

/** Runs a section's blocks in `cwd`; `work` holds what the test itself writes (a background block's log). */
async function runSection(section: string, cwd: string, work: string, env: Record<string, string>, after?: string): Promise<RunResult> {
  for (const block of blocksOf(section).filter((candidate) => candidate.file)) await writeFile(join(cwd, block.file!), block.code);
  const result = await run('bash', ['-c', scriptFor(section, after)], { cwd, env: { ...env, WORK: work } });
  expect(result.code, `README quickstart "${section}" failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

const lastJsonLine = (output: string): unknown => JSON.parse(output.trim().split('\n').at(-1)!);

describe('README.md quickstarts', () => {
  it('marks runnable blocks in each of the three quickstarts', () => {
    expect(blocksOf('operator-embedded')).toHaveLength(1);
    expect(blocksOf('operator').length).toBeGreaterThanOrEqual(3);
    expect(blocksOf('customer').length).toBeGreaterThanOrEqual(3);
    expect(blocksOf('third-party')).toHaveLength(1);
  });

  describe('operator', () => {
    const folder = useFolderInCheckout();
    const database = useTestDatabase();

    it('npm start on a fresh embedded database prints a demo key and a curl command that works as pasted', async () => {
      const port = await freePort();
      // The printed curl is run as it stands, while the server still runs.
      const pastePrintedCurl = 'eval "$(grep -m1 -E "^ *curl " "$WORK/background.log")" > "$WORK/first-call.json"';
      await runSection('operator-embedded', REPO, folder.path, { PORT: String(port), LOADFEED_DATA_DIR: join(folder.path, 'data') }, pastePrintedCurl);
      const page = JSON.parse(await readFile(join(folder.path, 'first-call.json'), 'utf8')) as LoadPage;
      expect(checkLoadPage(page)).toEqual([]);
      expect(page.data).toHaveLength(5);
      expect(page.totalCount).toBeGreaterThan(5);
    }, 240_000);

    it('with DATABASE_URL: migrate, a customer, an import, a key, start, and a curl that returns the loads', async () => {
      const port = await freePort();
      const result = await runSection('operator', REPO, folder.path, { PORT: String(port), DATABASE_URL: database.url });
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
      const customer = await reference.customer(40);
      loads = (await customer.served()).length;
      env = { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key };
    });

    it('loadfeed list, loadfeed sync --sqlite, and the syncLoads snippet copy every load', async () => {
      const result = await runSection('customer', folder.path, folder.path, env);
      const copied = query(join(folder.path, 'loads.db'), 'SELECT * FROM loads') as Record<string, unknown>[];
      expect(copied).toHaveLength(loads);
      expect(Object.keys(copied[0]!).length).toBeGreaterThanOrEqual(LOAD_FIELDS.length);
      expect(result.stdout).toContain(`${loads} rows in`);
      expect(JSON.parse(await readFile(join(folder.path, 'loadfeed-cursor.json'), 'utf8'))).toBeTruthy();
      expect(result.stdout + result.stderr).not.toContain(env.LOADFEED_API_KEY);
    }, 240_000);

    it('loadfeed-conformance passes and writes its reports', async () => {
      const result = await runSection('third-party', folder.path, folder.path, env);
      expect(result.stdout + result.stderr).not.toContain(env.LOADFEED_API_KEY);
      const report = JSON.parse(await readFile(join(folder.path, 'conformance-report', 'report.json'), 'utf8')) as { stats: { unexpected: number; expected: number } };
      expect(report.stats.unexpected).toBe(0);
      expect(report.stats.expected).toBeGreaterThan(20);
    }, 300_000);
  });
});
