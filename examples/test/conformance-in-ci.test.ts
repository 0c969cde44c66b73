// examples/conformance-in-ci, run as a CI job runs it: against a conforming deployment it exits 0 and
// keeps the reports; against a broken one (a refused key, a contract break) it fails the job.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blocksOf } from './readme.js';
import { CHECKOUT, run, startProxy, useReferenceServer, useScratchFolder } from './support.js';

const reference = useReferenceServer();
const scratch = useScratchFolder();

const SCRIPT = 'conformance-in-ci/run-conformance.sh';

/** A deployment as the kit wants it: a customer with loads, another customer's key and a revoked key. */
async function deployment() {
  const customer = await reference.customer(30, 6);
  const other = await reference.customer(5);
  const revoked = await reference.server.createKey(customer.code);
  await reference.server.revokeKey(revoked.id);
  return { primary: customer.key, second: other.key, revoked: revoked.key };
}

/** The commands of a CI recipe, in order: GitHub Actions' `run:` steps, GitLab CI's `script:` items. */
function commandsIn(recipe: string): string[] {
  const commands: string[] = [];
  let inScript = false;
  for (const line of recipe.split('\n')) {
    const run = /^\s*- run: (.+)$/.exec(line);
    if (run) commands.push(run[1]!.replace(/\s+#.*$/, '').trim());
    if (/^\s*script:\s*$/.test(line)) inScript = true;
    else if (inScript && /^\s*- (.+)$/.test(line)) commands.push(/^\s*- (.+)$/.exec(line)![1]!.replace(/\s+#.*$/, '').trim());
    else if (inScript && line.trim() !== '') inScript = false;
  }
  return commands;
}

const filesIn = async (folder: string) => (await readdir(folder, { recursive: true })).map(String);

describe('examples/conformance-in-ci', () => {
  it('against a deployment that breaks the contract: exit 1, and the reports say which check failed', async () => {
    const keys = await deployment();
    const reports = join(scratch.path, 'broken');
    // Statuses outside the closed list (SPEC §3): "Delivered" becomes "delivered".
    const broken = await startProxy(reference.server.baseUrl, { alterBody: (body) => body.replace(/"status":"([A-Z])/g, (_match, first: string) => `"status":"${first.toLowerCase()}`) });
    let result;
    try {
      result = await run('bash', [SCRIPT, '--grep', 'contract/'], {
        env: { LOADFEED_BASE_URL: broken.url, LOADFEED_API_KEY: keys.primary, LOADFEED_REPORT_DIR: reports, LOADFEED_NO_EXHAUST: '1' },
      });
    } finally {
      await broken.close();
    }

    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain('run-conformance: a required check failed: see the reports');
    expect(await filesIn(reports)).toEqual(expect.arrayContaining(['junit.xml', 'report.json']));
  });

  it('with a key the deployment refuses: a non-zero exit that fails the job, without printing the key', async () => {
    const { revoked } = await deployment();

    const result = await run('bash', [SCRIPT], {
      env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: revoked, LOADFEED_REPORT_DIR: join(scratch.path, 'refused') },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the API key was refused/);
    expect(result.stderr).toContain('run-conformance: the kit could not run (exit 2)');
    expect(result.stdout + result.stderr).not.toContain(revoked);
  });

  it("the README's GitHub Actions and GitLab CI recipes, against a conforming deployment: each step runs as pasted in this checkout, exits 0 and keeps the reports", async () => {
    const keys = await deployment();
    const recipes = blocksOf('ci-recipe');
    expect(recipes).toHaveLength(2);
    const steps = recipes.map((recipe) => commandsIn(recipe.code));
    // npm ci is the step CI itself ran in this checkout before its tests (.ci/run).
    for (const recipe of steps) expect(recipe[0]).toBe('npm ci');
    // Both recipes run the same command after it; it runs once, with the recipe's variables set to a test
    // deployment (and the burst past the key's limit left out: CI time is ours).
    const commands = [...new Set(steps.flatMap((recipe) => recipe.slice(1)))];
    expect(commands).toHaveLength(1);
    const reports = join(CHECKOUT, 'conformance-report');
    try {
      const result = await run('bash', ['-c', commands[0]!], {
        cwd: CHECKOUT,
        env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: keys.primary, LOADFEED_SECOND_KEY: keys.second, LOADFEED_REVOKED_KEY: keys.revoked, LOADFEED_NO_EXHAUST: '1' },
      });
      expect(result.code, `${commands[0]}\n${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('run-conformance: every required check passed');
      // What the recipes keep as artifacts: the report folder, and GitLab's JUnit report in it.
      expect(await filesIn(reports)).toEqual(expect.arrayContaining(['junit.xml', 'report.json', 'summary.html', join('html', 'index.html')]));
      for (const key of Object.values(keys)) expect(result.stdout + result.stderr).not.toContain(key);
    } finally {
      await rm(reports, { recursive: true, force: true });
    }
  });

  it('without LOADFEED_BASE_URL: exit non-zero before anything runs, naming the variable', async () => {
    const result = await run('bash', [SCRIPT], { env: { LOADFEED_API_KEY: 'lf_live_unused' } });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/LOADFEED_BASE_URL: set LOADFEED_BASE_URL to the deployment to test/);
  });
});
