#!/usr/bin/env node
// loadfeed-conformance: flags and environment -> a Playwright Test run of the kit -> exit code
// (EXIT_CODES_HELP below). src/completeness.ts decides, and the reporters write the same result everywhere.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exitCodeHelp } from '@loadfeed/spec/cli';
import { EXIT_CODE } from './completeness.js';
import { ExchangeLog } from './evidence.js';
import { ENV, exchangeLogPath, readOptions, UsageError, type KitOptions } from './options.js';

const EXIT_CODES_HELP = exitCodeHelp('loadfeed-conformance', 'Exit codes (every report of the run says the same):');

const USAGE = `usage: loadfeed-conformance --base-url <url> [--second-key <key>] [--revoked-key <key>]
                            [--report-dir <dir>] [--grep <pattern>] [--no-exhaust]
  --base-url is the deployment's address without /api/v1 (the kit adds the paths), e.g. https://loads.example.com.
  The API key comes from ${ENV.apiKey} (or --api-key, which other users of the machine can see).
  Every flag has an environment variable: ${Object.values(ENV).filter((name) => name !== ENV.cli).join(', ')}.
${EXIT_CODES_HELP}`;

const FLAG_TO_ENV = {
  'base-url': ENV.baseUrl,
  'api-key': ENV.apiKey,
  'second-key': ENV.secondKey,
  'revoked-key': ENV.revokedKey,
  'report-dir': ENV.reportDir,
} as const;

/** The environment the run gets: the caller's, with the flags laid over it. */
function runEnvironment(argv: readonly string[]): { env: NodeJS.ProcessEnv; grep?: string; options: KitOptions } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(Object.keys(FLAG_TO_ENV).map((flag) => [flag, { type: 'string' as const }])),
        grep: { type: 'string' },
        'no-exhaust': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, [ENV.cli]: '1' };
  for (const [flag, name] of Object.entries(FLAG_TO_ENV)) {
    const value = values[flag];
    if (typeof value === 'string') env[name] = value;
  }
  if (values['no-exhaust']) env[ENV.noExhaust] = '1';
  if (typeof values['api-key'] === 'string') {
    console.error(`loadfeed-conformance: note: a key given as a flag shows in the process list; ${ENV.apiKey} keeps it out`);
  }
  const options = readOptions(env);
  env[ENV.reportDir] = options.reportDir;
  return { env, options, ...(typeof values.grep === 'string' ? { grep: values.grep } : {}) };
}

function runPlaywright(env: NodeJS.ProcessEnv, grep: string | undefined): Promise<number> {
  // This file is dist/src/cli.js; the compiled config and checks sit beside it in dist/.
  const compiled = join(dirname(fileURLToPath(import.meta.url)), '..');
  const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const args = [playwright, 'test', '--config', join(compiled, 'playwright.config.js'), ...(grep === undefined ? [] : ['--grep', grep])];
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, args, { env, stdio: 'inherit', cwd: compiled });
    child.on('error', failed);
    child.on('exit', (code) => done(code ?? 1));
  });
}

/** The exit code the run's summary decided (budget.json, written by the console reporter); none if it was not written. */
function decidedExitCode(reportDir: string): number | undefined {
  try {
    const { exitCode } = JSON.parse(readFileSync(join(reportDir, 'budget.json'), 'utf8')) as { exitCode?: unknown };
    return typeof exitCode === 'number' ? exitCode : undefined;
  } catch {
    return undefined;
  }
}

/** How many checks the JSON report says ran (passed, failed or skipped); 0 when there is no report. */
function checksRun(reportDir: string): number {
  try {
    const { stats } = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as { stats: Record<string, number> };
    return (stats.expected ?? 0) + (stats.unexpected ?? 0) + (stats.skipped ?? 0) + (stats.flaky ?? 0);
  } catch {
    return 0;
  }
}

async function main(): Promise<number> {
  let run;
  try {
    run = runEnvironment(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`loadfeed-conformance: ${error.message}`);
    console.error(USAGE);
    return EXIT_CODE.unusable;
  }
  const code = await runPlaywright(run.env, run.grep);
  const fatal = ExchangeLog.open(exchangeLogPath(run.options.reportDir)).fatal;
  if (fatal) {
    console.error(`loadfeed-conformance: ${fatal}`);
    return EXIT_CODE.unusable;
  }
  if (run.grep !== undefined && checksRun(run.options.reportDir) === 0) {
    console.error(`loadfeed-conformance: no check matches --grep ${run.grep}`);
    return EXIT_CODE.unusable;
  }
  // A run that ended without its summary (the runner crashed) has not passed.
  return decidedExitCode(run.options.reportDir) ?? (code === 0 ? EXIT_CODE.incomplete : EXIT_CODE.failed);
}

process.exitCode = await main();
