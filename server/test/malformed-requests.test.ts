// Requests that never reach a route as hapi sees them still get SPEC §7's error body and a request id,
// a response in progress on the same connection is not lost, and nothing of their bytes reaches the log.
import { connect } from 'node:net';
import { checkErrorBody } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { startAppWithKey, type TestApp } from './support/app.js';

/** The bound server/README states for a log line. */
const MAX_LOG_LINE_BYTES = 8 * 1024;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The responses in `bytes`, in order (each with a Content-Length, as every response here has). */
function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine = '', ...headerLines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: body ? (JSON.parse(body) as unknown) : undefined });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

/** Sends `request` as bytes (one write) on a new connection and reads every answer until the server closes it. */
function exchange(port: number, request: string | Buffer, { end = true } = {}): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => (end ? socket.end(request) : socket.write(request)));
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks))));
  });
}

function expectErrorBody(response: RawResponse | undefined, status: number): void {
  expect(response?.status).toBe(status);
  expect(response!.headers['content-type']).toMatch(/^application\/json/);
  expect(response!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(checkErrorBody(status, response!.body)).toEqual([]);
}

describe('requests the HTTP parser refuses', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;
  let port: number;
  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url, { env: { PORT: '0', HEADERS_TIMEOUT_MS: '1000' } }));
    await app.server.start();
    port = app.server.info.port as number;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a URL past the 16 KiB header limit gets a 431 with the error body and a request id', async () => {
    const [response, ...more] = await exchange(port, `GET /api/v1/loads?poNumber=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectErrorBody(response, 431);
    expect(response!.body).toEqual({ error: expect.stringContaining('too large') });
    expect(more).toEqual([]);
  });

  it('bytes that are not HTTP get a 400 with the error body and its details', async () => {
    const [response] = await exchange(port, 'GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n');
    expectErrorBody(response, 400);
  });

  it('an HTTP/1.1 request without a Host header gets a 400 with the error body and its details', async () => {
    const [response] = await exchange(port, `GET /api/v1/loads HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expectErrorBody(response, 400);
    expect((response!.body as { details: string[] }).details).toEqual([expect.stringContaining('Host')]);
  });

  it('a CONNECT gets a 405 with the error body, the same as another method on a route gets', async () => {
    const [response] = await exchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectErrorBody(response, 405);
    expect(response!.headers.allow).toBe('GET');
    const routed = await app.server.inject({ method: 'DELETE', url: '/api/v1/loads' });
    expect(routed.statusCode).toBe(405);
    expect(response!.body).toEqual(JSON.parse(routed.payload));
  });

  it('an Expect other than 100-continue gets a 417 with the error body', async () => {
    const [response] = await exchange(port, 'GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nExpect: fancy\r\nConnection: close\r\n\r\n', { end: false });
    expectErrorBody(response, 417);
  });

  it("the 417 keeps the caller's well-formed X-Request-Id, as a routed response does, and replaces one that is not", async () => {
    const expecting = (id: string) => `GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nExpect: fancy\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n`;
    const [kept] = await exchange(port, expecting('caller-trace.42:a_b'), { end: false });
    expect(kept?.status).toBe(417);
    expect(kept!.headers['x-request-id']).toBe('caller-trace.42:a_b');
    const [replaced] = await exchange(port, expecting('not well formed'), { end: false });
    expectErrorBody(replaced, 417);
  });

  it('a client that stalls in the middle of its headers gets a 408 once HEADERS_TIMEOUT_MS has passed', async () => {
    const started = Date.now();
    const [response] = await exchange(port, 'GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nAccept: app', { end: false });
    expectErrorBody(response, 408);
    // HEADERS_TIMEOUT_MS=1000, checked every second.
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('answers a valid request before refusing an oversized one pipelined after it in the same segment', async () => {
    const responses = await exchange(
      port,
      `GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\nGET /api/v1/loads?poNumber=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      // The client keeps its side open, as a pipelining client waiting for its answers does.
      { end: false },
    );
    expect(responses.map((response) => response.status)).toEqual([200, 431]);
    expectErrorBody(responses[1], 431);
  });

  it('writes no raw request bytes to the log, so no key, and no line past the bound, even for a 1 MB header', async () => {
    const before = app.logLines.length;
    const overflow = `X-Filler: ${'f'.repeat(20_000)}\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    // Alone, after a request in progress on the same connection (hapi's handler logged that case whole), and as a 1 MB header.
    await exchange(port, `GET /api/v1/loads HTTP/1.1\r\nHost: x\r\n${overflow}`);
    await exchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/loads HTTP/1.1\r\nHost: x\r\n${overflow}`, { end: false });
    await exchange(port, `GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(1_000_000)}\r\n\r\n`).catch(() => []);
    // Each refusal is logged before its answer is sent; a line still on its way is waited for, not slept for.
    for (const started = Date.now(); app.logLines.length - before < 3 && Date.now() - started < 5_000; ) await new Promise((resolve) => setImmediate(resolve));
    const written = app.logLines.slice(before);
    expect(written.length).toBeGreaterThanOrEqual(3);
    const text = written.join('\n');
    expect(text).not.toContain(key.slice('lf_live_'.length));
    expect(text).not.toContain('rawPacket');
    expect(text).not.toContain('"data":[');
    for (const line of written) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    for (const line of written.filter((entry) => entry.includes('malformed request refused'))) {
      expect(JSON.parse(line)).toMatchObject({ requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), code: expect.any(String) });
    }
  });

  it('keeps serving afterwards', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(response.status).toBe(200);
  });
});
