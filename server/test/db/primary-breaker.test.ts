// The primary's breaker as a route's first step: open, SPEC's 500 before any other step of the route
// runs; closed again by the next check that gets an answer. The log hears of each change once.
import Hapi from '@hapi/hapi';
import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PrimaryBreaker } from '../../src/db/primary-breaker.js';

describe('the primary breaker', () => {
  it("refuses a route's requests while the primary fails its check, and lets them through once it answers", async () => {
    const lines: Array<{ msg: string }> = [];
    const log = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string }));
        done();
      },
    });
    const breaker = new PrimaryBreaker(pino(log));
    let reachedNextStep = 0;
    const server = Hapi.server();
    server.route({
      method: 'GET',
      path: '/uses-the-primary',
      options: {
        ext: {
          onPreAuth: [
            { method: breaker.refuseWhileOpen },
            {
              method: (_request, h) => {
                reachedNextStep += 1;
                return h.continue;
              },
            },
          ],
        },
        handler: () => 'ok',
      },
    });
    const status = async () => (await server.inject('/uses-the-primary')).statusCode;

    expect(await status()).toBe(200);
    breaker.record(false, new Error('connection refused'));
    breaker.record(false, new Error('connection refused'));
    expect(breaker.isOpen()).toBe(true);
    expect(await status()).toBe(500);
    expect(reachedNextStep).toBe(1);
    breaker.record(true);
    expect(breaker.isOpen()).toBe(false);
    expect(await status()).toBe(200);
    expect(lines.map((line) => line.msg)).toEqual([
      'the primary database does not answer; requests get a 500 until it does',
      'the primary database answers again',
    ]);
  });
});
