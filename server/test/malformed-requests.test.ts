// Requests Node's HTTP parser refuses before hapi sees them still get SPEC §7's error body.
import { connect } from 'node:net';
import { checkErrorBody } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../src/testing/index.js';
import { useTestDatabase } from '../src/testing/vitest.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sends `request` as bytes on a new connection and reads the whole answer until the server closes. */
function exchange(baseUrl: string, request: string): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined });
    });
  });
}

describe('requests the HTTP parser refuses', () => {
  const database = useTestDatabase();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a URL past the 16 KiB header limit gets a 431 with the error body and a request id', async () => {
    const response = await exchange(server.baseUrl, `GET /api/v1/loads?poNumber=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkErrorBody(431, response.body)).toEqual([]);
    expect(response.body).toEqual({ error: expect.stringContaining('too large') });
  });

  it('bytes that are not HTTP get a 400 with the error body and its details', async () => {
    const response = await exchange(server.baseUrl, 'GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n');
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkErrorBody(400, response.body)).toEqual([]);
  });

  it('keeps serving afterwards', async () => {
    const response = await fetch(`${server.baseUrl}/healthz`);
    expect(response.status).toBe(200);
  });
});
