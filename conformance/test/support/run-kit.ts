// Runs the kit the way a third party does, through its bin, and reads the outcome of every check from the
// JSON report.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { levelOf, outcomeOf, type Annotation, type Outcome } from '../../src/outcome.js';
import type { Keys } from './deployment.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

export interface CheckResult {
  title: string;
  file: string;
  level: 'required' | 'warning';
  outcome: Outcome;
  message: string;
}

export interface KitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  checks: CheckResult[];
  metadata: { requests: number; unexpected429: number; exhaustBurst: number } | undefined;
}

interface JsonSuite {
  title: string;
  file: string;
  specs: { title: string; tests: { annotations: Annotation[]; results: { status: string; annotations?: Annotation[]; errors: { message?: string }[] }[] }[] }[];
  suites?: JsonSuite[];
}

function checksOf(suites: readonly JsonSuite[]): CheckResult[] {
  return suites.flatMap((suite) => [
    ...suite.specs.flatMap((spec) =>
      spec.tests.map((test) => {
        const result = test.results.at(-1)!;
        const annotations = [...test.annotations, ...(result.annotations ?? [])];
        return {
          title: spec.title,
          file: suite.file,
          level: levelOf(annotations),
          outcome: outcomeOf(result.status, annotations),
          message: result.errors.map((error) => error.message ?? '').join('\n') || (annotations.find((a) => a.type === 'warning')?.description ?? ''),
        };
      }),
    ),
    ...checksOf(suite.suites ?? []),
  ]);
}

export interface KitRunOptions {
  baseUrl: string;
  keys: Partial<Keys> & { primary: string };
  grep?: string;
  exhaust?: boolean;
  /** The Node binary that runs the kit (and Playwright under it); this one by default. */
  node?: string;
  /** Looks at the report folder before it is removed. */
  inspectReport?: (reportDir: string) => Promise<void>;
}

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the bin with these arguments and the LOADFEED_* variables given (no others from this process), under `node` (this one by default). */
export function runCli(args: readonly string[], loadfeedEnv: Record<string, string>, node: string = process.execPath): Promise<CliRun> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LOADFEED_')));
  return new Promise((resolve) => {
    execFile(node, [CLI, ...args], { env: { ...env, ...loadfeedEnv }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ exitCode: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export async function runKit(options: KitRunOptions): Promise<KitRun> {
  const reportDir = await mkdtemp(join(tmpdir(), 'loadfeed-kit-'));
  const args = ['--base-url', options.baseUrl, '--report-dir', reportDir, ...(options.grep ? ['--grep', options.grep] : []), ...(options.exhaust ? [] : ['--no-exhaust'])];
  const { exitCode, stdout, stderr } = await runCli(args, {
    LOADFEED_API_KEY: options.keys.primary,
    ...(options.keys.second ? { LOADFEED_SECOND_KEY: options.keys.second } : {}),
    ...(options.keys.revoked ? { LOADFEED_REVOKED_KEY: options.keys.revoked } : {}),
  }, options.node);
  try {
    await options.inspectReport?.(reportDir);
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8').catch(() => '{"suites":[]}')) as {
      suites: JsonSuite[];
      config?: { metadata?: { loadfeed?: KitRun['metadata'] } };
    };
    return { exitCode, stdout, stderr, checks: checksOf(report.suites), metadata: report.config?.metadata?.loadfeed };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

/** The one check whose title matches, so a test names the rule it expects to catch a fault. */
export function checkNamed(run: KitRun, title: RegExp): CheckResult {
  const matching = run.checks.filter((check) => title.test(check.title));
  if (matching.length !== 1) throw new Error(`expected one check matching ${title}, found ${matching.length}: ${run.checks.map((check) => check.title).join(' | ')}`);
  return matching[0]!;
}
