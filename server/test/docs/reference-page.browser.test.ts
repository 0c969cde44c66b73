// Opens the reference page in Debian's Chromium as a person would, through the real listening server.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/testing/server.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Where the screenshot goes; server/docs/api-reference.png in the repo is a copy of it. */
const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results');

describe('the API reference page in a browser', () => {
  const database = useTestDatabase();
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows listLoads and its parameters, tries requests against this server, and makes no request elsewhere and no console error', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const consoleErrors: string[] = [];
    const foreignRequests: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl) && !request.url().startsWith('data:')) foreignRequests.push(request.url());
    });

    await page.goto(`${server.baseUrl}/api/v1/docs`, { waitUntil: 'networkidle' });
    const operation = page.locator('#operations-loads-listLoads');
    await operation.waitFor();
    await expect(operation.textContent()).resolves.toContain('/api/v1/loads');
    await operation.locator('.opblock-summary').click();
    for (const name of ['page', 'pageSize', 'updatedSince', 'status', 'pickupFrom', 'pickupTo', 'deliveryFrom', 'deliveryTo', 'poNumber', 'billingRefNumber']) {
      // The parameters render after the click; waiting for each also fails on two rows (strict mode).
      const row = operation.locator(`tr[data-param-name="${name}"]`);
      await row.waitFor({ timeout: 15_000 });
      await expect(row.count(), name).resolves.toBe(1);
    }
    await expect(page.locator('.servers select').inputValue()).resolves.toBe(server.baseUrl);
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'api-reference.png'), fullPage: false });

    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  }, 60_000);
});
