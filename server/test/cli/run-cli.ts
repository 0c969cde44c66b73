// Runs the built `loadfeed-server` (dist/cli/main.js, so `npx tsc -b server` first) as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string;
}

/** The environment of a run: this process's, without any database a developer has set, plus `env`. */
export function cliEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, TEST_DATABASE_URL: _test, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'warn', ...env };
}

export async function runCli(args: string[], { env, stdin }: CliOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  const [stdout, stderr] = [collect(child.stdout!), collect(child.stderr!)];
  child.stdin!.end(stdin ?? '');
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout: await stdout, stderr: await stderr };
}

/** A run that must succeed; its stdout. */
export async function cliOk(args: string[], options: CliOptions = {}): Promise<string> {
  const result = await runCli(args, options);
  if (result.code !== 0) throw new Error(`loadfeed-server ${args.join(' ')} exited with ${result.code}: ${result.stderr}`);
  return result.stdout;
}

export function collect(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return once(child, 'exit').then(([code]) => code as number | null);
}

/** One query on a fresh connection. */
export async function query<R extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
