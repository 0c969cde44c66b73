// Runs the built `loadfeed` as a user does: `node sdk/dist/cli/main.js …` in a child process, with only
// the environment a test gives it (no LOADFEED_* leaks in from the machine).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useScratchFolder as useScratchFolderOf } from '@loadfeed/server/testing/vitest';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** For tests that run several CLI processes against a server: room enough on a loaded CI machine. */
export const SLOW_TEST_MS = 120_000;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** Everything printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once stderr (or stdout) contains `text`. */
  printed(text: string | RegExp): Promise<void>;
  done: Promise<CliResult>;
}

function cleanEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LOADFEED_')));
  return { ...inherited, ...env };
}

export interface CliOptions {
  cwd?: string;
  /** Options for node itself, before the CLI's path. */
  nodeArgs?: string[];
}

export function startCli(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], { env: cleanEnvironment(env), cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  return watch(child);
}

/** The CLI inside a pseudo-terminal (util-linux `script`), so that stderr is a TTY as in a shell. */
export function startCliInTerminal(args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}): RunningCli {
  const command = [process.execPath, CLI, ...args].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...cleanEnvironment(env), COLUMNS: '120' },
    cwd: options.cwd,
    // Its input is the terminal's keyboard: writing "\x03" there is a Ctrl-C.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return watch(child);
}

function watch(child: ChildProcess): RunningCli {
  let stdout = '';
  let stderr = '';
  const waiters: { text: string | RegExp; resolve(): void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const all = stdout + stderr;
      if (typeof waiter.text === 'string' ? all.includes(waiter.text) : waiter.text.test(all)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    check();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    check();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    printed(text) {
      return new Promise<void>((resolve, reject) => {
        waiters.push({ text, resolve });
        check();
        void done.then((result) => reject(new Error(`the CLI exited (${result.code}) without printing ${String(text)}:\n${result.stdout}\n${result.stderr}`)));
      });
    },
    done,
  };
}

export function runCli(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, env, options).done;
}

/** A scratch folder for this test file, removed after it. */
export const useScratchFolder = () => useScratchFolderOf('loadfeed-cli-');
