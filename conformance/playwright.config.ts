// The kit as a Playwright Test project: API testing only (no browser), one worker so that the run keeps one
// ledger of requests and stays inside the key's rate limit. Inputs come from LOADFEED_* environment
// variables (see README.md); `loadfeed-conformance` sets them from its flags.
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { join } from 'node:path';
import { ENV, readOptions } from './src/options.js';

const { reportDir } = readOptions();
const EXHAUST_CHECK = '**/rate-limit/exhaust.spec.ts';
const viaCli = process.env[ENV.cli] === '1';

// This file runs as source (a checkout) or compiled in dist/ (the bin, an installed kit): name its modules alike.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const reporter = `./src/reporter${extension}`;

const reporters: ReporterDescription[] = [
  viaCli ? [reporter, { lines: true }] : ['list'],
  ...(viaCli ? [] : [[reporter, { lines: false }] as ReporterDescription]),
  ['html', { outputFolder: join(reportDir, 'html'), open: 'never' }],
  ['junit', { outputFile: join(reportDir, 'junit.xml') }],
  ['json', { outputFile: join(reportDir, 'report.json') }],
];

export default defineConfig({
  testDir: './tests',
  outputDir: join(reportDir, 'test-results'),
  globalSetup: `./src/global-setup${extension}`,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  // Pacing waits for the rate window (up to a minute per wait), and the exhaust check waits Retry-After.
  timeout: 10 * 60_000,
  reporter: reporters,
  // The exhaust check runs after every other check, so that none of them waits out the window it empties.
  projects: [
    { name: 'conformance', testIgnore: EXHAUST_CHECK },
    { name: 'exhaust', testMatch: EXHAUST_CHECK },
  ],
});
