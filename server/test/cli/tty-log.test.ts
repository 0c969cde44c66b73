// On a terminal, `start` shows the request log as readable lines; elsewhere it stays JSON (start.test.ts).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readableLog, readableLogLine } from '../../src/cli/tty-log.js';

// A line as hapi-pino writes it for a request, with the customer bound once the key is known.
const REQUEST_LINE = JSON.stringify({
  level: 30,
  time: Date.parse('2026-11-22T23:05:47.802Z'),
  pid: 9740,
  hostname: 'vm',
  requestId: '5082f5be-0549-447b-8950-77d62622d363',
  method: 'get',
  path: '/api/v1/loads',
  customer: 'demo',
  res: { statusCode: 200 },
  responseTime: 14,
  msg: 'GET /api/v1/loads 200 14ms',
});

describe('the readable request log', () => {
  it('shows time, level, message, customer and request id, and none of pino\'s other fields', () => {
    expect(readableLogLine(REQUEST_LINE)).toBe('23:05:47.802 INFO  GET /api/v1/loads 200 14ms  customer=demo request=5082f5be-0549-447b-8950-77d62622d363');
  });

  it('names an error\'s type and message', () => {
    const line = JSON.stringify({ level: 40, time: 0, msg: 'an idle database connection failed; the pool replaces it', err: { type: 'Error', message: 'terminated' } });
    expect(readableLogLine(line)).toBe('00:00:00.000 WARN  an idle database connection failed; the pool replaces it (Error: terminated)');
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(readableLogLine('not json')).toBe('not json');
  });

  it('writes one readable line per JSON line it is given', async () => {
    const out = new PassThrough();
    let written = '';
    out.setEncoding('utf8').on('data', (chunk: string) => (written += chunk));
    const log = readableLog(out);
    log.write(`${REQUEST_LINE}\n`);
    log.write(`${JSON.stringify({ level: 30, time: 0, msg: 'server stopped' })}\n`);
    await new Promise<void>((resolve) => log.end(resolve));
    expect(written.split('\n')).toEqual([expect.stringMatching(/^23:05:47\.802 INFO {2}GET /), '00:00:00.000 INFO  server stopped', '']);
  });
});
