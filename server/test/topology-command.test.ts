// `npm run topology`, as an operator runs it: one command brings the topology up and prints a URL and a
// key that work as printed; Ctrl-C stops every part of it, so nothing listens any more.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const serverFolder = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Whether something accepts connections on the port (a refused connection says nothing listens). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The topology command's run until `interruptWhen` holds for what it printed; then Ctrl-C, and its exit. */
async function runUntil(interruptWhen: (printed: string) => boolean, whileUp: (printed: string) => Promise<void> = async () => {}) {
  // npm run topology compiles topology/ first; npm test only type-checks it.
  await promisify(execFile)(process.execPath, [tsc, '-p', 'topology'], { cwd: serverFolder });
  const command = spawn(process.execPath, ['topology/dist/main.js'], { cwd: serverFolder, env: { ...process.env, TOPOLOGY_LOADS: '30' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = once(command, 'exit');
  let printed = '';
  command.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  try {
    for (const started = Date.now(); !interruptWhen(printed); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (command.exitCode !== null || Date.now() - started > 150_000) throw new Error(`the topology did not come up:\n${printed}`);
    }
    await whileUp(printed);
    command.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    return { code, printed };
  } finally {
    if (command.exitCode === null) command.kill('SIGKILL');
  }
}

/** Every loopback port the command named: HAProxy, the instances and their metrics, PgBouncer, the clusters. */
const portsIn = (printed: string) => new Set([...printed.matchAll(/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1])));

describe('npm run topology', () => {
  it('prints a URL and a key that serve loads as printed, and stops every part on Ctrl-C', async () => {
    const { code, printed } = await runUntil(
      (printed) => printed.includes('Stop with Ctrl-C.'),
      async (printed) => {
        const url = /listening on (http:\/\/\S+)/.exec(printed)![1]!;
        const key = /^ {2}(lf_live_\S+)$/m.exec(printed)![1]!;
        const response = await fetch(`${url}/api/v1/loads?pageSize=5`, { headers: { authorization: `Bearer ${key}` } });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(5);
      },
    );
    expect(code).toBe(0);
    expect(printed).toContain('topology: stopped');
    expect(portsIn(printed).size).toBeGreaterThanOrEqual(6);
    for (const port of portsIn(printed)) expect(await listening(port), `port ${port}`).toBe(false);
  }, 240_000);

  it('with a program missing, says which and its Debian package in one line, exits 1 and starts nothing', async () => {
    await promisify(execFile)(process.execPath, [tsc, '-p', 'topology'], { cwd: serverFolder });
    const run = promisify(execFile)(process.execPath, ['topology/dist/main.js'], { cwd: serverFolder, env: { ...process.env, LOADFEED_POSTGRES_BIN: '/nonexistent/postgresql/bin' } });
    const failed = (await run.then(() => undefined, (error: unknown) => error)) as { code: number; stdout: string; stderr: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("topology: /nonexistent/postgresql/bin/initdb is not installed: the topology needs Debian's postgresql package (scripts/provision.sh installs it)\n");
  }, 60_000);

  it('stops every part it started when Ctrl-C comes while it is still starting', async () => {
    const { code, printed } = await runUntil((printed) => printed.includes('topology: starting'));
    expect(code).toBe(0);
    expect(printed).toMatch(/SIGINT received, stopping/);
    expect(printed).toContain('topology: stopped');
    // It came up before it stopped (the banner names every port), so the check below has ports to check.
    expect(portsIn(printed).size).toBeGreaterThanOrEqual(6);
    for (const port of portsIn(printed)) expect(await listening(port), `port ${port}`).toBe(false);
  }, 240_000);
});
