// A hostile HTTP server on loopback: whatever may answer at a base URL (a misconfigured proxy, a captive
// portal, a buggy or compromised deployment). Each test gives it a handler; it records every request and
// how many body bytes it managed to write before the client hung up, which is how a test shows that a
// 10 GB body was not downloaded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOAD_FIELDS, NULLABLE_LOAD_FIELDS, type Load } from '@loadfeed/spec';
import { onTestFinished } from 'vitest';

export interface HostileServer {
  baseUrl: string;
  port: number;
  /** Each request's URL (path and query) and headers, in order. */
  requests: { url: string; headers: IncomingMessage['headers'] }[];
  /** Body bytes written so far, over every response. */
  readonly bytesSent: number;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, server: { count: (bytes: number) => void; index: number }) => void;

/** Starts a server for the current test (closed after it); `handler` answers every request. */
export async function startHostileServer(handler: Handler): Promise<HostileServer> {
  const requests: HostileServer['requests'] = [];
  let bytesSent = 0;
  const server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    request.resume();
    handler(request, response, { count: (bytes) => void (bytesSent += bytes), index: requests.length - 1 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    get bytesSent() {
      return bytesSent;
    },
  };
}

/** A row the contract accepts: every field present, the nullable ones null. */
export function contractRow(n: number, overrides: Partial<Load> & Record<string, unknown> = {}): Load {
  const row = Object.fromEntries(LOAD_FIELDS.map((field) => [field, (NULLABLE_LOAD_FIELDS as readonly string[]).includes(field) ? null : undefined])) as Record<string, unknown>;
  Object.assign(row, {
    loadNumber: `L${String(n).padStart(6, '0')}`,
    status: 'InTransit',
    miles: '120.5',
    updatedAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  });
  return Object.assign(row, overrides) as Load;
}

export function pageOf(rows: unknown[], envelope: { page?: number; pageSize?: number; totalCount?: number; hasMore?: boolean } = {}): string {
  return JSON.stringify({ data: rows, page: envelope.page ?? 1, pageSize: envelope.pageSize ?? 100, totalCount: envelope.totalCount ?? rows.length, hasMore: envelope.hasMore ?? false });
}

/** The query of a request the server received. */
export const queryOf = (url: string) => new URL(url, 'http://x').searchParams;

export function sendJson(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

/**
 * A body of `totalBytes` (10 GB by default) written as fast as the client reads it, chunked or under a
 * Content-Length, counted as it goes; it stops when the client hangs up.
 */
export function endlessBody(options: { declareLength: boolean; totalBytes?: number }): Handler {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const totalBytes = options.totalBytes ?? 10 * 1024 ** 3;
  return (_request, response, server) => {
    response.writeHead(200, { 'Content-Type': 'application/json', ...(options.declareLength ? { 'Content-Length': totalBytes } : {}) });
    let written = 0;
    let closed = false;
    response.on('close', () => void (closed = true));
    const pump = () => {
      while (!closed && written < totalBytes) {
        written += chunk.length;
        server.count(chunk.length);
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (!closed) response.end();
    };
    pump();
  };
}
