// Every way a run can fail to test a deployment, against small deployments written here for the purpose,
// and every report the run writes: none may call it passed, and each says it was not tested (exit 2).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-kit.js';

const KEY = 'lf_live_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const DOCUMENT = JSON.stringify({ openapi: '3.1.0', info: { title: 'Customer Data API', version: '1.0.0' }, paths: {} });

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Serves the OpenAPI document at its SPEC path; everything else goes to `loads`. */
const deployment =
  (loads: Handler): Handler =>
  (request, response) => {
    if (request.url === '/api/v1/openapi.json') response.writeHead(200, { 'content-type': 'application/json' }).end(DOCUMENT);
    else if (request.url?.startsWith('/api/v1/')) loads(request, response);
    else response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
  };

const servers: Server[] = [];
async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const refusing = deployment((_request, response) =>
  response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"Invalid or missing API key"}'),
);
/** The document answers, then the connection drops on the first request for loads: setup cannot take its sample. */
const dropping = deployment((request) => request.socket.destroy());

interface Reports {
  exitCode: number;
  console: string;
  junit: string;
  json: { config: { metadata: { loadfeed?: { result: string; exitCode: number; fatal?: string } } }; stats: Record<string, number> };
  budget: { result: string; exitCode: number; fatal?: string };
  html: string;
  lastRun: { status: string; loadfeed?: { result: string; exitCode: number } };
}

async function runAndRead(baseUrl: string): Promise<Reports> {
  const reportDir = await mkdtemp(join(tmpdir(), 'loadfeed-kit-'));
  try {
    const run = await runCli(['--base-url', baseUrl, '--report-dir', reportDir, '--no-exhaust'], { LOADFEED_API_KEY: KEY });
    const read = (path: string) => readFile(join(reportDir, path), 'utf8');
    return {
      exitCode: run.exitCode,
      console: run.stdout + run.stderr,
      junit: await read('junit.xml'),
      json: JSON.parse(await read('report.json')) as Reports['json'],
      budget: JSON.parse(await read('budget.json')) as Reports['budget'],
      html: await read('summary.html'),
      lastRun: JSON.parse(await read('test-results/.last-run.json')) as Reports['lastRun'],
    };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

const cases: [string, () => Promise<string>, RegExp][] = [
  ['the deployment refuses the key', () => serve(refusing), /the API key was refused: GET \/api\/v1\/loads\?pageSize=\d+ gave 401/],
  ['the base URL ends in /api/v1', async () => `${await serve(refusing)}/api/v1`, /the base URL ends in \/api\/v1.*use --base-url http:\/\/127\.0\.0\.1:\d+$/m],
  ['the base URL answers HTML for the document', () => serve((_request, response) => response.writeHead(404, { 'content-type': 'text/html' }).end('<html></html>')), /answered 404 with an HTML page/],
  [
    'nothing listens at the base URL',
    async () => {
      const url = await serve(refusing);
      const server = servers.pop()!;
      await new Promise((resolve) => server.close(resolve));
      return url;
    },
    /cannot reach http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/,
  ],
  ['the connection drops while setup takes its sample (a fatal error in setup)', () => serve(dropping), /cannot reach|socket|closed/i],
];

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe.each(cases)('a run that could not test: %s', (_name, deploy, reason) => {
  let reports: Reports;
  beforeAll(async () => {
    reports = await runAndRead(await deploy());
  }, 120_000);

  it('exits 2 and the console says not tested, and why, never passed', () => {
    expect(reports.exitCode, reports.console).toBe(2);
    expect(reports.console).toMatch(/result: not tested: .*\(exit 2\)/);
    expect(reports.console).toMatch(reason);
    expect(reports.console).not.toMatch(/passed \(exit 0\)|every required check ran and passed/);
  });

  it('JUnit: an error a CI shows, with the reason', () => {
    expect(reports.junit).toMatch(/<testsuites [^>]*name="loadfeed-conformance: unusable \(exit 2\)[^"]*"[^>]*errors="1"/);
    expect(reports.junit).toMatch(/<testcase name="the run's result: unusable"[^>]*>\s*<error message="not tested/);
    expect(reports.junit.replaceAll('&apos;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&')).toMatch(reason);
  });

  it('JSON report and budget.json: result unusable, exit code 2, the reason', () => {
    for (const summary of [reports.json.config.metadata.loadfeed, reports.budget]) {
      expect(summary).toMatchObject({ result: 'unusable', exitCode: 2 });
      expect(summary?.fatal).toMatch(reason);
    }
  });

  it('summary.html: titled not tested, with the reason', () => {
    expect(reports.html).toMatch(/<title>loadfeed-conformance: unusable<\/title>/);
    expect(reports.html).toMatch(/<h1>loadfeed-conformance: not tested: /);
    expect(reports.html).toMatch(/<p class="why">/);
    expect(reports.html).not.toMatch(/every required check ran and passed/);
  });

  it("Playwright's .last-run.json: failed, with the kit's result", () => {
    expect(reports.lastRun).toMatchObject({ status: 'failed', loadfeed: { result: 'unusable', exitCode: 2 } });
  });
});
