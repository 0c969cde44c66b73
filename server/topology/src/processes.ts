// How the topology runs Debian's programs: PostgreSQL and PgBouncer refuse to run as root, so when this
// process is root they run as the `postgres` user (setpriv execs them directly, so a signal sent to the
// child reaches the program itself). Every folder they use is made here and handed to that user.
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { chown, mkdtemp } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian puts PostgreSQL 15's server programs (initdb, pg_ctl, pg_basebackup). */
export const POSTGRES_BIN = process.env.LOADFEED_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

const RUN_AS = 'postgres';

function runAsPrefix(): string[] {
  if (process.getuid?.() !== 0) return [];
  return ['setpriv', `--reuid=${RUN_AS}`, `--regid=${RUN_AS}`, '--init-groups', '--'];
}

/** The command line that runs `program` as the unprivileged user when this process is root. */
export function unprivileged(program: string, args: string[]): [string, string[]] {
  const [first, ...rest] = [...runAsPrefix(), program, ...args];
  return [first!, rest];
}

/** Runs a program to its end as the unprivileged user; rejects with its output when it fails. */
export async function runUnprivileged(program: string, args: string[], { timeoutMs = 120_000 } = {}): Promise<string> {
  const [command, commandArgs] = unprivileged(program, args);
  try {
    const { stdout, stderr } = await run(command, commandArgs, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}

/** Starts a long-running program as the unprivileged user. */
export function spawnUnprivileged(program: string, args: string[]): ChildProcess {
  const [command, commandArgs] = unprivileged(program, args);
  return spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A program the topology runs is not installed: the one line `npm run topology` prints, without a stack. */
export class MissingProgram extends Error {
  override name = 'MissingProgram';
}

/** Throws a message naming the Debian package when `program` is not installed. */
export function requireProgram(program: string, debianPackage: string): void {
  const found = program.includes('/') ? existsSync(program) : spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
  if (!found) throw new MissingProgram(`${program} is not installed: the topology needs Debian's ${debianPackage} package (scripts/provision.sh installs it)`);
}

/** Every program of the topology, checked before any part of it starts. */
export function requireTopologyPrograms(): void {
  requireProgram(join(POSTGRES_BIN, 'initdb'), 'postgresql');
  requireProgram('pgbouncer', 'pgbouncer');
  requireProgram('haproxy', 'haproxy');
}

function runAsIds(): [number, number] {
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, RUN_AS], { encoding: 'utf8' }).trim()));
  return [uid!, gid!];
}

/** Hands files to the unprivileged user (when this process is root, the files are root's). */
export async function chownToRunAs(...paths: string[]): Promise<void> {
  const [uid, gid] = runAsIds();
  for (const path of paths) await chown(path, uid, gid);
}

/** A new folder under the system's temporary folder that the unprivileged user owns. */
export async function ownedFolder(prefix: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  if (process.getuid?.() === 0) await chownToRunAs(folder);
  return folder;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port`; rejects after `timeoutMs`. */
export async function waitForPort(port: number, { timeoutMs = 30_000, what = `port ${port}` } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not open within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends `signal` to a child and waits for it to end; after `timeoutMs` it is killed. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}
