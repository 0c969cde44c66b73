// The kit on the Node lines its engines name beside Node 20 (which runs the full kit in
// reference-server.test.ts): under Node 22, 24 and 26 (installed by scripts/runtimes.mjs), the kit's bin
// and Playwright under it run a named subset, the authentication, error and pagination checks, against
// the reference server, and every check passes.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKeys, startDeployment } from './support/deployment.js';
import { runKit } from './support/run-kit.js';

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const SUBSET = 'authentication/|errors/|pagination/';

/** The Node binaries scripts/runtimes.mjs installs (it installs them first when missing). */
function installedNodes(): Record<'node22' | 'node24' | 'node26', string> {
  return JSON.parse(execFileSync(process.execPath, [join(CHECKOUT, 'scripts', 'runtimes.mjs'), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as Record<'node22' | 'node24' | 'node26', string>;
}

const database = useTestDatabase();
let server: TestServer;
let nodes: ReturnType<typeof installedNodes>;

beforeAll(async () => {
  nodes = installedNodes();
  server = await startDeployment(database.url);
});
afterAll(async () => {
  await server?.stop();
});

describe.each(['node22', 'node24', 'node26'] as const)('the kit under %s', (line) => {
  it(`runs ${SUBSET} against the reference server, every check passing`, async () => {
    const node = nodes[line];
    expect(execFileSync(node, ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^v${line.slice(4)}\\.`));
    const run = await runKit({ baseUrl: server.baseUrl, keys: await issueKeys(server, 40), grep: SUBSET, node });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.checks.length).toBeGreaterThan(10);
    // As the full run on Node 20 (reference-server.test.ts): every required check passes, and no warning.
    expect(run.checks.filter((check) => check.level === 'required' && check.outcome !== 'pass').map((check) => `${check.outcome}: ${check.title}\n${check.message}`)).toEqual([]);
    expect(run.checks.filter((check) => check.outcome === 'warning').map((check) => `${check.title}: ${check.message}`)).toEqual([]);
    for (const group of ['authentication/', 'errors/', 'pagination/']) expect(run.checks.some((check) => check.file.includes(group) && check.outcome === 'pass'), group).toBe(true);
  });
});
