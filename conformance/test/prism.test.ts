// A deployment nobody here wrote: Stoplight Prism mocking our own contract, static (the examples and
// schema defaults) and dynamic (random data from the schemas). The kit must finish, exit 1, fail the
// checks of what a mock cannot do (pagination, filters, telling keys apart), and fail every check with a
// finding about the deployment, never with an error of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkNamed, runKit, type KitRun } from './support/run-kit.js';

const require = createRequire(import.meta.url);
const PRISM = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
const CONTRACT = require.resolve('@loadfeed/spec/openapi.yaml');
/** The shape of a key, with nothing behind it: Prism accepts any Bearer credential. */
const KEY = 'lf_live_0123456789abcdefghijklmnopqrstuvwxyzABCD';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startPrism(dynamic: boolean): Promise<{ baseUrl: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, 'mock', ...(dynamic ? ['--dynamic'] : []), '--host', '127.0.0.1', '--port', String(port), CONTRACT], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), 60_000);
    const listen = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Prism is listening/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', listen);
    child.stderr!.on('data', listen);
    child.on('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${output}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, child };
}

/** What an error of the kit itself looks like, as opposed to a finding about the deployment. */
const KIT_ERROR = /TypeError|ReferenceError|RangeError|SyntaxError|Cannot read propert|is not a function|Test timeout|worker process exited/;

const runs = new Map<string, KitRun>();
const prisms: ChildProcess[] = [];

beforeAll(async () => {
  await Promise.all(
    (['static', 'dynamic'] as const).map(async (mode) => {
      const prism = await startPrism(mode === 'dynamic');
      prisms.push(prism.child);
      runs.set(mode, await runKit({ baseUrl: prism.baseUrl, keys: { primary: KEY } }));
    }),
  );
}, 400_000);
afterAll(() => {
  for (const child of prisms) child.kill();
});

describe.each(['static', 'dynamic'])('Prism mocking the contract (%s)', (mode) => {
  it('finishes and exits 1', () => {
    const run = runs.get(mode)!;
    expect(run.checks.length).toBeGreaterThan(60);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
  });

  it('fails the checks of what a mock cannot do: pagination, filters, telling keys apart', () => {
    const run = runs.get(mode)!;
    for (const title of [
      /a pageSize above the maximum clamps to it/,
      /a status filter returns only rows with that status/,
      /^poNumber given a strict prefix/,
      /an unknown key of the valid shape .* gets 401/,
      /the OpenAPI document is served at/,
    ]) {
      const check = checkNamed(run, title);
      // Random data may leave a dynamic mock without the rows a check needs: it may then not run, but
      // it never passes. The static mock's examples always let it run.
      if (mode === 'dynamic' && check.outcome === 'skip') continue;
      expect(check.outcome, `${check.title}\n${check.message}`).toBe('fail');
    }
  });

  it('fails every check with a finding about the deployment (expected, actual), never with an error of its own', () => {
    const run = runs.get(mode)!;
    const failed = run.checks.filter((check) => check.outcome === 'fail');
    expect(failed.filter((check) => KIT_ERROR.test(check.message)).map((check) => `${check.title}\n${check.message}`)).toEqual([]);
    for (const check of failed) expect(check.message, check.title).toMatch(/\n {2}expected: .+\n {2}actual: {3}.+/);
    expect(run.stderr).not.toMatch(KIT_ERROR);
  });
});
