import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { addCustomer } from '../src/customers.js';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { createKey } from '../src/admission/keys.js';
import { importLoads } from '../src/loads/import.js';
import { createLogger } from '../src/logging.js';
import { Metrics } from '../src/metrics.js';
import { listenForMetrics, type MetricsListener } from '../src/metrics-server.js';
import { useTestDatabase } from '../src/testing/vitest.js';
import type { Server } from '@hapi/hapi';
import type pg from 'pg';

/** The value of one sample line of a scrape, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('/metrics', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;
  let server: Server;
  let listener: MetricsListener;
  let key: string;

  beforeAll(async () => {
    await migrate(database.url);
    pool = createPool(database.url, { max: 3 });
    await addCustomer(pool, 'acme');
    await importLoads(pool, 'acme', [{ line: 1, value: { loadNumber: 'L1', status: 'Available', scheduledPickupDate: new Date().toISOString() } }]);
    key = (await createKey(pool, 'acme', { rateLimit: 3 })).key;
    const metrics = new Metrics();
    server = await createServer(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }), { pool, logger: createLogger('silent'), metrics });
    listener = await listenForMetrics(metrics, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await listener?.close();
    await server?.stop();
    await pool?.end();
  });

  const scrape = async (): Promise<string> => {
    const response = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };
  const get = (url: string) => server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  it('is served on a port of its own and not by the API', async () => {
    expect((await server.inject('/metrics')).statusCode).toBe(404);
    expect((await fetch(`http://127.0.0.1:${listener.port}/other`)).status).toBe(404);
  });

  it('counts requests by route and status, their latency, 429s, the horizon, where pages were read and the pool', async () => {
    const before = await scrape();
    for (let request = 0; request < 3; request += 1) expect((await get('/api/v1/loads')).statusCode).toBe(200);
    expect((await get('/api/v1/loads')).statusCode).toBe(429);
    expect((await server.inject('/nowhere')).statusCode).toBe(404);
    const after = await scrape();

    const loads = { route: '/api/v1/loads', method: 'GET' };
    expect(sample(after, 'loadfeed_http_requests_total', { ...loads, status: '200' }) - sample(before, 'loadfeed_http_requests_total', { ...loads, status: '200' })).toBe(3);
    expect(sample(after, 'loadfeed_http_requests_total', { ...loads, status: '429' }) - sample(before, 'loadfeed_http_requests_total', { ...loads, status: '429' })).toBe(1);
    expect(sample(after, 'loadfeed_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'loadfeed_http_request_duration_seconds_count', { route: '/api/v1/loads' }) - sample(before, 'loadfeed_http_request_duration_seconds_count', { route: '/api/v1/loads' })).toBe(4);
    expect(sample(after, 'loadfeed_rate_limit_rejections_total') - sample(before, 'loadfeed_rate_limit_rejections_total')).toBe(1);
    expect(sample(after, 'loadfeed_settled_horizon_lag_seconds_count') - sample(before, 'loadfeed_settled_horizon_lag_seconds_count')).toBe(3);
    expect(sample(after, 'loadfeed_page_reads_total', { database: 'primary' }) - sample(before, 'loadfeed_page_reads_total', { database: 'primary' })).toBe(3);
    expect(sample(after, 'loadfeed_db_pool_acquire_seconds_count', { database: 'primary' })).toBeGreaterThan(sample(before, 'loadfeed_db_pool_acquire_seconds_count', { database: 'primary' }));
    expect(after).toMatch(/^loadfeed_db_pool_connections\{database="primary",state="idle"\} \d+$/m);
    expect(after).toMatch(/^loadfeed_db_pool_waiting\{database="primary"\} 0$/m);
    expect(after).toMatch(/^process_cpu_seconds_total /m);
  });
});
