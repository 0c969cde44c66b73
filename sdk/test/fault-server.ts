// A small HTTP server on loopback that answers each request as a script says: a page of loads, or a
// fault the network can cause between the SDK and the server — a body whose socket closes mid-way, a
// JSON body cut short under a Content-Length that matches the cut, headers and then silence.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { contractRow } from './hostile-server.js';

export type Fault = 'ok' | 'socket-closed-mid-body' | 'json-cut-with-matching-length' | 'headers-then-silence' | 'status-503';

/** A page the client accepts: the envelope and rows the contract accepts. */
export function pageBody(rows = 3): string {
  const data = Array.from({ length: rows }, (_, index) =>
    contractRow(index + 1, {
      updatedAt: `2026-01-01T00:00:0${index}.000Z`,
      // Some bulk, so that a cut falls well inside the body.
      poNumber: `PO-${'x'.repeat(200)}`,
    }),
  );
  return JSON.stringify({ data, page: 1, pageSize: 100, totalCount: rows, hasMore: false });
}

function answer(response: ServerResponse, fault: Fault): void {
  const body = Buffer.from(pageBody());
  const half = body.subarray(0, Math.floor(body.length / 2));
  const json = { 'Content-Type': 'application/json' };
  switch (fault) {
    case 'ok':
      response.writeHead(200, { ...json, 'Content-Length': body.length });
      response.end(body);
      return;
    case 'status-503':
      response.writeHead(503, json);
      response.end('{"error":"down"}');
      return;
    case 'socket-closed-mid-body':
      response.writeHead(200, { ...json, 'Content-Length': body.length });
      response.flushHeaders();
      response.write(half, () => setTimeout(() => response.socket?.destroy(), 20));
      return;
    case 'json-cut-with-matching-length':
      response.writeHead(200, { ...json, 'Content-Length': half.length });
      response.end(half);
      return;
    case 'headers-then-silence':
      response.writeHead(200, { ...json, 'Content-Length': body.length });
      response.flushHeaders();
      response.write(half);
      return;
  }
}

/** Starts a fault server for the current test (closed after it): request n gets `script[n]`, then 'ok'. */
export async function startFaultServer(script: Fault[]) {
  const served: Fault[] = [];
  const server = createServer((request, response) => {
    const fault = script[served.length] ?? 'ok';
    served.push(fault);
    request.resume();
    answer(response, fault);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, port, served };
}
