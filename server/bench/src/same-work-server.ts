// A baseline that does our server's work without its framework: bare node:http, and per request the
// same statements as ours (admission/admit-request.ts's one round trip for the key, the rate-limit count and the
// settled horizon; then loads/list.ts's page, with its count kept the same way). What is left between the
// two is hapi, validation, logging and the rest of what a product server does around its statements.
import type { ServerResponse } from 'node:http';
import { DEFAULT_RATE_LIMIT, LIST_LOADS_PATH, feedWindowStart } from '@loadfeed/spec';
import { admitRequest } from '../../dist/admission/admit-request.js';
import { CountCache } from '../../dist/loads/count-cache.js';
import { listLoads } from '../../dist/loads/list.js';
import { bearerKey, MAX_PAGE_SIZE, pageParameters, poolFor, send, serveBare } from './bare-server.js';

const pool = poolFor('same-work');
const counts = new CountCache();

async function handle(url: URL, authorization: string | undefined, response: ServerResponse): Promise<void> {
  if (url.pathname !== LIST_LOADS_PATH) return send(response, 404, '{"error":"Not found"}');
  const key = bearerKey(authorization);
  const admission = key ? await admitRequest(pool, key, DEFAULT_RATE_LIMIT) : null;
  if (!admission) return send(response, 401, '{"error":"Unauthorized"}');
  if (!admission.decision.admitted) return send(response, 429, '{"error":"Rate limit exceeded"}');
  const { page, pageSize } = pageParameters(url, MAX_PAGE_SIZE);
  const scope = { customerId: admission.credentials.customerId, windowStart: feedWindowStart(new Date()), settledThrough: admission.settledThrough };
  send(response, 200, await listLoads(pool, counts, scope, { page, pageSize }));
}

serveBare('same-work', pool, handle);
