// What the bare servers of the benchmark share, so that they differ only in their statements: a pool on
// DATABASE_URL, a JSON answer, the bearer key, the page parameters, and a node:http server on PORT that
// says where it listens, answers a failure with a 500 and closes its pool on SIGTERM.
import { createServer, type ServerResponse } from 'node:http';
import type pg from 'pg';
import { createPool } from '../../dist/db/pool.js';

export type Handler = (url: URL, authorization: string | undefined, response: ServerResponse) => Promise<void>;

export function poolFor(name: string): pg.Pool {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error(`${name}: DATABASE_URL is required`);
  return createPool(databaseUrl, { max: 10 });
}

export function send(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

export function bearerKey(authorization: string | undefined): string | undefined {
  return /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
}

/** The largest page the bare servers serve: the contract's 1000, as ours with MAX_PAGE_SIZE=1000. */
export const MAX_PAGE_SIZE = 1000;

/** `page` and `pageSize` as the contract reads them, without the messages: the benchmark sends valid ones. */
export function pageParameters(url: URL, maxPageSize: number): { page: number; pageSize: number } {
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const pageSize = Math.min(maxPageSize, Math.max(1, Number(url.searchParams.get('pageSize') ?? 100) || 100));
  return { page, pageSize };
}

export function serveBare(name: string, pool: pg.Pool, handle: Handler): void {
  const server = createServer((request, response) => {
    handle(new URL(request.url ?? '/', `http://${name}`), request.headers.authorization, response).catch((error: unknown) => {
      process.stderr.write(`${name}-server: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!response.headersSent) send(response, 500, '{"error":"Internal server error"}');
    });
  });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${name} listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  const shutdown = (): void => {
    server.close(() => void pool.end());
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
