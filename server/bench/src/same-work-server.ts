// A baseline that does our server's work without its framework: bare node:http, and per request the
// same statements as ours (auth/admission.ts's one round trip for the key, the rate-limit count and the
// settled horizon; then loads/list.ts's page, with its count kept the same way). What is left between the
// two is hapi, validation, logging and the rest of what a product server does around its statements.
import { createServer, type ServerResponse } from 'node:http';
import { DEFAULT_RATE_LIMIT, LIST_LOADS_PATH, feedWindowStart } from '@loadfeed/spec';
import { admitRequest } from '../../dist/auth/admission.js';
import { createPool } from '../../dist/db/pool.js';
import { CountCache } from '../../dist/loads/count-cache.js';
import { listLoads } from '../../dist/loads/list.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('same-work-server: DATABASE_URL is required');
const pool = createPool(databaseUrl, { max: 10 });
const counts = new CountCache();

function send(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function handle(url: URL, authorization: string | undefined, response: ServerResponse): Promise<void> {
  if (url.pathname !== LIST_LOADS_PATH) return send(response, 404, '{"error":"Not found"}');
  const key = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  const admission = key ? await admitRequest(pool, key, DEFAULT_RATE_LIMIT, new Date()) : null;
  if (!admission) return send(response, 401, '{"error":"Unauthorized"}');
  if (!admission.decision.admitted) return send(response, 429, '{"error":"Rate limit exceeded"}');
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const pageSize = Math.min(100, Math.max(1, Number(url.searchParams.get('pageSize') ?? 100) || 100));
  const scope = { customerId: admission.credentials.customerId, windowStart: feedWindowStart(new Date()), settledThrough: admission.settledThrough };
  send(response, 200, await listLoads(pool, counts, scope, { page, pageSize }));
}

const server = createServer((request, response) => {
  handle(new URL(request.url ?? '/', 'http://same-work'), request.headers.authorization, response).catch((error: unknown) => {
    process.stderr.write(`same-work-server: ${error instanceof Error ? error.message : String(error)}\n`);
    if (!response.headersSent) send(response, 500, '{"error":"Internal server error"}');
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`same-work listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}\n`);
});
const shutdown = (): void => {
  server.close(() => void pool.end());
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
