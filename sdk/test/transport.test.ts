// The transport alone: one attempt brings the whole response, and every way it can fail, up to the last
// byte of the body, is a ConnectionError that names the host and the cause.
import { describe, expect, it } from 'vitest';
import { ConnectionError, DEFAULT_RETRY_POLICY, LoadfeedError, createClient } from '../src/index.js';
import { wholeResponses } from '../src/transport.js';
import { pageBody, startFaultServer } from './fault-server.js';

const transport = wholeResponses((request) => fetch(request));
const attempt = (url: string) => transport(new Request(`${url}/api/v1/loads`), { attempt: 1 });

describe("a runtime's refusal of the network", () => {
  it("Deno's NotCapable (no --allow-net) reaches the caller as it is, after one request, not retried as a ConnectionError", async () => {
    const denial = Object.assign(new Error('Requires net access to "127.0.0.1:9", run again with the --allow-net flag'), { name: 'NotCapable' });
    let requests = 0;
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'lf_live_x',
      fetch: () => {
        requests += 1;
        return Promise.reject(denial);
      },
    });
    await expect(client.listLoads()).rejects.toBe(denial);
    expect(requests).toBe(1);
  });

  it('a TypeError from fetch stays a ConnectionError, retried (so the test above can fail)', async () => {
    let requests = 0;
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'lf_live_x',
      retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      fetch: () => {
        requests += 1;
        return Promise.reject(new TypeError('fetch failed'));
      },
    });
    await expect(client.listLoads()).rejects.toBeInstanceOf(ConnectionError);
    expect(requests).toBe(2);
  });
});

describe('the transport reads the body inside the attempt', () => {
  it('a socket closed mid-body is a ConnectionError naming the host, not a bare TypeError: terminated', async () => {
    const server = await startFaultServer(['socket-closed-mid-body']);
    const error = await attempt(server.baseUrl).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(`the response from 127.0.0.1:${server.port} was cut short mid-body (UND_ERR_SOCKET: the server closed the connection)`);
  });

  it('JSON cut short under a Content-Length that matches the cut is a ConnectionError, not a SyntaxError', async () => {
    const server = await startFaultServer(['json-cut-with-matching-length']);
    const error = await attempt(server.baseUrl).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(new RegExp(`^the response from 127\\.0\\.0\\.1:${server.port} was cut short: its \\d+ bytes are not whole JSON`));
  });

  it('a whole response comes back read, with its status, headers and parsed body', async () => {
    const server = await startFaultServer(['ok', 'status-503']);
    const response = await attempt(server.baseUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(JSON.parse(pageBody()));
    const failed = await attempt(server.baseUrl);
    expect(failed.status).toBe(503);
    expect(await failed.text()).toBe('{"error":"down"}');
  });

  it('the body it read can be read again, whole, any way and any number of times (a middleware may clone it)', async () => {
    const server = await startFaultServer(['ok']);
    const response = await attempt(server.baseUrl);
    const whole = pageBody();
    expect(await response.clone().json()).toEqual(JSON.parse(whole));
    expect(await response.text()).toBe(whole);
    expect(await response.clone().text()).toBe(whole);
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe(whole);
    expect(await new Response(response.body).text()).toBe(whole);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(whole)));
    expect(response.clone().status).toBe(200);
  });

  it('a refused connection names the host, the port and the cause', async () => {
    const server = await startFaultServer([]);
    const closed = `http://127.0.0.1:${server.port + 1}`;
    const error = await attempt(closed).catch((caught: unknown) => caught);
    // Nothing listens on the next port on loopback in a test run; if something did, this says so.
    expect(error).toBeInstanceOf(LoadfeedError);
    expect((error as Error).message).toBe(`the request to 127.0.0.1:${server.port + 1} failed (ECONNREFUSED: connection refused: nothing listens there)`);
  });

  it('an unknown host says ENOTFOUND', async () => {
    const error = await attempt('http://no-such-host.invalid:8080').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/^the request to no-such-host\.invalid:8080 failed \((ENOTFOUND: no such host|EAI_AGAIN: .*)\)$/);
  });
});
