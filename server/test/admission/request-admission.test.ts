import type { Request } from '@hapi/hapi';
import { describe, expect, it } from 'vitest';
import type { Admission } from '../../src/admission/admit-request.js';
import { admissionOf, admitted } from '../../src/admission/request-admission.js';
import type { Turn } from '../../src/admission/turn.js';

const key: Admission = {
  credentials: { keyId: 'k', customerId: '7', customerCode: 'acme', rateLimit: null },
  decision: { admitted: true, limit: 10, remaining: 9, resetAt: 0, countedAt: new Date(0) },
  settledThrough: '2026-11-28T00:00:00.000Z',
  feedVersion: 3n,
};
const atDatabase = (async (work) => work({} as never)) as Turn['atDatabase'];
const requestWith = (): Request => ({ app: {} }) as Request;

describe('a request admission', () => {
  it('gives the handler the key admission and the turn its steps recorded on the request', () => {
    const request = requestWith();
    admissionOf(request).turn = { atDatabase } as Turn;
    admissionOf(request).key = key;
    expect(admitted(request)).toEqual({ ...key, atDatabase });
  });

  it('is a 500 when a route lacks the turn or the key admission, rather than a page without a horizon', () => {
    const withoutKey = requestWith();
    admissionOf(withoutKey).turn = { atDatabase } as Turn;
    const withoutTurn = requestWith();
    admissionOf(withoutTurn).key = key;
    for (const request of [withoutKey, withoutTurn, requestWith()]) {
      expect(() => admitted(request)).toThrow(expect.objectContaining({ isBoom: true, output: expect.objectContaining({ statusCode: 500 }) }));
    }
  });
});
