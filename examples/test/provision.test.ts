// scripts/provision.sh, which `npm test` runs first: quiet and quick when the machine has what the tests
// need (npm test has just run it), and a clear message when it cannot help.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKOUT, run } from './support.js';

const SCRIPT = join(CHECKOUT, 'scripts', 'provision.sh');

describe('scripts/provision.sh', () => {
  it('says nothing and takes no time when Chromium, the PostgreSQL server tools, PgBouncer and HAProxy are there', async () => {
    const began = Date.now();
    const result = await run('sh', [SCRIPT]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(Date.now() - began).toBeLessThan(2_000);
  });

  it('names a CHROMIUM_PATH that is not a program', async () => {
    const result = await run('sh', [SCRIPT], { env: { CHROMIUM_PATH: '/nowhere/chromium' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('provision: CHROMIUM_PATH=/nowhere/chromium is not an executable\n');
  });
});
