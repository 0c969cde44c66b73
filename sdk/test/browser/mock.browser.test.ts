// The mock in a browser, as its docs offer it: msw's setupWorker over the mock's handlers, in Debian's
// Chromium, answering the SDK's client and the page's own fetch. The page (page.ts) is bundled for the
// browser here, as an application's build would bundle it, and served from localhost with msw's worker.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { rolldown } from 'rolldown';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

async function bundlePage(): Promise<string> {
  const bundle = await rolldown({ input: new URL('page.ts', import.meta.url).pathname, platform: 'browser', logLevel: 'silent' });
  try {
    const { output } = await bundle.generate({ format: 'esm', codeSplitting: false });
    return output[0].code;
  } finally {
    await bundle.close();
  }
}

describe('the mock in a browser (msw setupWorker, Chromium)', () => {
  let server: Server;
  let origin: string;
  let browser: Browser;
  beforeAll(async () => {
    const files: Record<string, string> = {
      '/': '<!doctype html><meta charset="utf-8"><title>mock</title><script type="module" src="/page.js"></script>',
      '/page.js': await bundlePage(),
      '/mockServiceWorker.js': await readFile(createRequire(import.meta.url).resolve('msw/mockServiceWorker.js'), 'utf8'),
    };
    server = createServer((request, response) => {
      const body = files[new URL(request.url ?? '/', 'http://localhost').pathname];
      if (request.url === '/favicon.ico') return void response.writeHead(204).end();
      if (body === undefined) return void response.writeHead(404).end();
      const type = request.url === '/' ? 'text/html' : 'text/javascript';
      response.writeHead(200, { 'Content-Type': `${type}; charset=utf-8` }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('answers the SDK client with filtered, paged loads, a 401 without a key and a 400 for 30 February, with no page error', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Chromium logs every 4xx as a console error; the 401 and the 400 are the ones asked for.
    const expectedStatus = /^Failed to load resource: the server responded with a status of (401|400) /;
    page.on('console', (message) => message.type() === 'error' && !expectedStatus.test(message.text()) && errors.push(message.text()));
    await page.goto(origin);
    const outcome = await page.evaluate(() => (globalThis as unknown as { outcome: Promise<unknown> }).outcome);
    expect(errors).toEqual([]);
    expect(outcome).toEqual({
      loadNumbers: ['L-1'],
      totalCount: 2,
      hasMore: true,
      unauthorized: { status: 401, body: { error: expect.stringContaining('API key') } },
      invalid: { status: 400, body: { error: 'Invalid query parameters', details: [expect.stringContaining('updatedSince')] }, remaining: '8' },
    });
  });
});
