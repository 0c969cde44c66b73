// Huge and stalled bodies from a hostile server: the response size cap is kept while the body streams (a
// 10 GB body is refused after the cap, not downloaded, and not downloaded again by a retry), and an
// attempt has a timeout by default that covers the body.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResponseTooLargeError, TimeoutError, createClient, syncLoads } from '../src/index.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../src/body-limit.js';
import { DEFAULT_TIMEOUT_MS } from '../src/timeout.js';
import { MOCK_API_KEY } from '../src/mock/index.js';
import { contractRow, endlessBody, pageOf, sendJson, startHostileServer } from './hostile-server.js';

const MiB = 1024 * 1024;

describe('the response size cap', () => {
  it('a 10 GB chunked body is refused once the cap has arrived: not downloaded, not retried, and the sync upserts nothing', async () => {
    const server = await startHostileServer(endlessBody({ declareLength: false }));
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, maxResponseBytes: MiB });
    const upserted: unknown[] = [];
    const heapBefore = process.memoryUsage().heapUsed;
    const error = await syncLoads({ client, upsert: (rows) => void upserted.push(...rows) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(MiB);
    expect((error as Error).message).toBe(
      `the response from 127.0.0.1:${server.port} is larger than the client's maxResponseBytes (${MiB} bytes): more than that arrived, and the rest was not read`,
    );
    expect(server.requests).toHaveLength(1);
    expect(upserted).toEqual([]);
    // What the server got out before the client hung up: the cap and the sockets' buffers, not gigabytes.
    expect(server.bytesSent).toBeLessThan(32 * MiB);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * MiB);
  });

  it('a Content-Length above the cap is refused before the body is read', async () => {
    const server = await startHostileServer(endlessBody({ declareLength: true }));
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY });
    const error = await client.listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toBe(
      `the response from 127.0.0.1:${server.port} is larger than the client's maxResponseBytes (${DEFAULT_MAX_RESPONSE_BYTES} bytes): its Content-Length says ${10 * 1024 ** 3}`,
    );
    expect((error as ResponseTooLargeError).status).toBe(200);
    expect(server.requests).toHaveLength(1);
    expect(server.bytesSent).toBeLessThan(DEFAULT_MAX_RESPONSE_BYTES);
  });

  it('by default the cap is well above the largest page: 1,000 long rows pass, a body past 32 MiB does not', async () => {
    const rows = Array.from({ length: 1000 }, (_, index) => contractRow(index + 1, { poNumber: 'P'.repeat(1000), originCity: 'C'.repeat(1000) }));
    const page = pageOf(rows, { pageSize: 1000 });
    expect(Buffer.byteLength(page)).toBeGreaterThan(2 * MiB);
    const server = await startHostileServer((request, response, { index }) =>
      index === 0 ? sendJson(response, 200, page) : endlessBody({ declareLength: false, totalBytes: DEFAULT_MAX_RESPONSE_BYTES + 1 })(request, response, { count: () => {}, index }),
    );
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY });
    expect((await client.listLoads({ pageSize: 1000 })).data).toHaveLength(1000);
    await expect(client.listLoads()).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it('an error status with a huge body is refused the same way, not read whole', async () => {
    const server = await startHostileServer((_request, response, server) => {
      response.writeHead(503, { 'Content-Type': 'text/html' });
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = () => {
        while (!response.destroyed && server.index === 0) {
          server.count(chunk.length);
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
      };
      response.on('close', () => {});
      pump();
    });
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, maxResponseBytes: MiB });
    await expect(client.listLoads()).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the default timeout', () => {
  afterEach(() => void vi.useRealTimers());

  it(`an attempt whose body stalls after its first bytes ends after ${DEFAULT_TIMEOUT_MS} ms without any timeoutMs given`, { timeout: 10_000 }, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const encoder = new TextEncoder();
    // Headers, a first chunk, then silence: a stream that never ends and never errors.
    const stalled = () =>
      Promise.resolve(
        new Response(new ReadableStream({ start: (controller) => controller.enqueue(encoder.encode('{"data":[')) }), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      );
    const client = createClient({ baseUrl: 'http://loads.example.com', apiKey: MOCK_API_KEY, fetch: stalled, retry: { maxAttempts: 1 } });
    const outcome = client.listLoads().then(
      () => 'answered',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
    expect(await Promise.race([outcome, Promise.resolve('pending')])).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(`no response from loads.example.com:80 within ${DEFAULT_TIMEOUT_MS} ms`);
  });
});
