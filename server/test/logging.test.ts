import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logging.js';
import { useTestDatabase } from '../src/testing/vitest.js';
import { startApp, startAppWithKey, type TestApp } from './support/app.js';

/** The bound server/README states for a log line. */
const MAX_LOG_LINE_BYTES = 8 * 1024;

interface RequestLine {
  requestId?: string;
  customer?: string;
  res?: { statusCode: number };
  responseTime?: number;
  msg?: string;
}

describe('request logging', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url));
  });
  afterAll(async () => {
    await app?.close();
  });

  function lineOf(requestId: string): RequestLine {
    const lines = app.logLines.map((line) => JSON.parse(line) as RequestLine).filter((line) => line.requestId === requestId && line.res);
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  it('writes one line per request with its id, customer, status and duration', async () => {
    const response = await app.get('/api/v1/loads', key);
    const line = lineOf(String(response.headers['x-request-id']));
    expect(line).toMatchObject({ customer: 'acme', res: { statusCode: 200 } });
    expect(line.responseTime).toEqual(expect.any(Number));
    expect(line.msg).toMatch(/^GET \/api\/v1\/loads 200 \d+ms$/);
  });

  it('logs a refused request without a customer', async () => {
    const response = await app.get('/api/v1/loads', `${key}x`);
    const line = lineOf(String(response.headers['x-request-id']));
    expect(line.res).toEqual({ statusCode: 401 });
    expect(line.customer).toBeUndefined();
  });

  it('never writes a key, wherever a client puts it', async () => {
    const before = app.logLines.length;
    await app.get('/api/v1/loads', key);
    await app.get('/api/v1/loads', `${key}x`);
    await app.get('/api/v1/loads', undefined, { authorization: `Basic ${key}` });
    await app.get(`/api/v1/loads?apiKey=${key}`, key);
    await app.get(`/api/v1/loads?status=${key}`, key);
    await app.get(`/nowhere?key=${key}`, undefined, { 'x-api-key': key });
    const broken = await startApp(database.url);
    await broken.pool.end();
    await broken.get('/api/v1/loads', key);
    await broken.server.stop();
    const written = [...app.logLines.slice(before), ...broken.logLines].join('\n');
    expect(written.length).toBeGreaterThan(0);
    expect(written).not.toContain(key.slice('lf_live_'.length));
    expect(written.toLowerCase()).not.toContain('authorization');
  });
});

describe('the logger', () => {
  function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    return { lines, logger: createLogger('info', destination) };
  }

  it('logs an error by its type, message, code, stack and causes, never its other properties', () => {
    const { lines, logger } = capture();
    const parserError = Object.assign(new Error('Parse Error: Header overflow'), { code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from('Authorization: Bearer x') });
    const refused = new AggregateError([Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })], 'all attempts failed');
    logger.error({ err: parserError }, 'one');
    logger.error({ err: new Error('query failed', { cause: refused }) }, 'two');
    const [one, two] = lines.map((line) => JSON.parse(line) as { err: Record<string, unknown> });
    expect(Object.keys(one!.err).sort()).toEqual(['code', 'message', 'stack', 'type']);
    expect(lines[0]).not.toContain('rawPacket');
    expect(two!.err).toMatchObject({ message: 'query failed', cause: { type: 'AggregateError', errors: [{ code: 'ECONNREFUSED' }] } });
  });

  it('keeps every line within its bound, and masks anything shaped like a key', () => {
    const { lines, logger } = capture();
    logger.info({ requestId: 'r-1', path: `/${'p'.repeat(200_000)}` }, 'm'.repeat(200_000));
    logger.info({ note: 'lf_live_AbCdEf0123456789' }, 'key lf_live_ZyXw-_987 in a message');
    expect(Buffer.byteLength(lines[0]!)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, requestId: 'r-1', truncated: expect.stringContaining('bytes') });
    expect(lines[1]).not.toMatch(/AbCdEf|ZyXw/);
  });
});
