// The kit against a second deployment of SPEC.md, written here from SPEC.md alone with other choices
// wherever SPEC.md is silent (./support/independent-deployment.ts says which): every required check
// passes, and what only DECISIONS.md decides shows as warnings, never as failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIndependentDeployment, type IndependentDeployment } from './support/independent-deployment.js';
import { agedOutLoad, loadsOf } from './support/loads.js';
import { tiedGroups } from './support/stamps.js';
import { checkNamed, runKit, type KitRun } from './support/run-kit.js';

const KEYS = {
  primary: 'lf_live_independentPrimaryKey000000000000000000',
  second: 'lf_live_independentSecondKey0000000000000000000',
  revoked: 'lf_live_independentRevokedKey000000000000000000',
};

let deployment: IndependentDeployment;
let run: KitRun;

beforeAll(async () => {
  const acme = loadsOf('AC', 36);
  const beta = loadsOf('BT', 10);
  deployment = await startIndependentDeployment(
    {
      ACME: { key: KEYS.primary, loads: [agedOutLoad('AC'), ...acme], stamps: tiedGroups([agedOutLoad('AC'), ...acme].map((load) => load.loadNumber), 6) },
      BETA: { key: KEYS.second, loads: beta, stamps: tiedGroups(beta.map((load) => load.loadNumber), 2) },
    },
    600,
  );
  run = await runKit({ baseUrl: deployment.baseUrl, keys: KEYS });
}, 240_000);
afterAll(async () => {
  await deployment?.stop();
});

describe('a deployment written from SPEC.md alone, with other choices where it is silent', () => {
  it('passes every required check it runs, and runs all but the two left out by --no-exhaust: exit 0', () => {
    const failed = run.checks.filter((check) => check.level === 'required' && check.outcome !== 'pass' && check.outcome !== 'skip');
    expect(failed.map((check) => `${check.title}: ${check.outcome}\n${check.message}`)).toEqual([]);
    // The burst past a key's limit (and the wait for Retry-After) is the one thing CI time leaves out.
    expect(run.checks.filter((check) => check.outcome === 'skip' && check.level === 'required').map((check) => check.title)).toEqual([
      expect.stringMatching(/going past the limit/),
      expect.stringMatching(/after waiting Retry-After/),
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.checks.length).toBeGreaterThan(60);
  });

  it('finds listLoads and the Load schema in a document whose server is /api/v1 and whose path is /loads', () => {
    expect(checkNamed(run, /the document has listLoads at GET \/api\/v1\/loads/).outcome).toBe('pass');
    expect(checkNamed(run, /the document's Load schema has SPEC's 23 fields/).outcome).toBe('pass');
  });

  it("reports what DECISIONS.md decides otherwise as warnings", () => {
    for (const title of [
      /an unknown parameter \(a typo of updatedSince\)/,
      /a single-valued parameter given twice/,
      /an empty value \(poNumber=\)/,
      /an unknown path is a 404 with the error body/,
      /another method on \/api\/v1\/loads is a 405/,
      /every 401 carries WWW-Authenticate: Bearer/,
      /the Bearer scheme name is case-insensitive/,
    ]) {
      const check = checkNamed(run, title);
      expect(check.level, check.title).toBe('warning');
      expect(check.outcome, `${check.title}\n${check.message}`).toBe('warning');
    }
  });
});
