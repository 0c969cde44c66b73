import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeExchange, maskAuthorization, replayCommand, type Exchange } from '../src/evidence.js';

const secret = fc.stringMatching(/^[A-Za-z0-9]{32,48}$/);

describe('maskAuthorization', () => {
  it('keeps the scheme and the key prefix, and nothing of the secret', () => {
    fc.assert(
      fc.property(secret, (part) => {
        const masked = maskAuthorization(`Bearer lf_live_${part}`);
        expect(masked).toMatch(/^Bearer lf_live_…\(\d+ characters, masked, #[0-9a-f]{6}\)$/);
        expect(masked).not.toContain(part.slice(0, 8));
      }),
    );
  });

  it('tells two keys of one length apart, so the run never answers one from the other', () => {
    fc.assert(
      fc.property(secret, secret, (a, b) => {
        fc.pre(a !== b && a.length === b.length);
        expect(maskAuthorization(`Bearer lf_live_${a}`)).not.toBe(maskAuthorization(`Bearer lf_live_${b}`));
      }),
    );
  });

  it('masks a value without a scheme as a whole', () => {
    expect(maskAuthorization('lf_live_abcdefghijklmnopqrstuvwxyz0123456789')).toMatch(/^lf_live_…\(44 characters, masked, #[0-9a-f]{6}\)$/);
  });
});

describe('describeExchange', () => {
  it('shows the request with the key masked, the status, the rate headers and a body excerpt', () => {
    const exchange: Exchange = {
      id: 7,
      credential: 'primary',
      authorization: maskAuthorization('Bearer lf_live_abcdefghijklmnopqrstuvwxyz0123456789'),
      method: 'GET',
      target: '/api/v1/loads?page=2',
      listLoads: true,
      sentAt: 0,
      receivedAt: 1,
      status: 200,
      headers: { 'x-ratelimit-remaining': '4', 'set-cookie': 'irrelevant' },
      body: null,
      bodyExcerpt: '{"data":[]}',
      violations: [],
    };
    const text = describeExchange(exchange);
    expect(text).toContain('#7 GET /api/v1/loads?page=2');
    expect(text).toContain('x-ratelimit-remaining: 4');
    expect(text).toContain('{"data":[]}');
    expect(text).not.toContain('abcdefgh');
    expect(text).not.toContain('set-cookie');
  });
});

describe('replayCommand', () => {
  const base: Exchange = {
    id: 3,
    credential: 'primary',
    authorization: maskAuthorization('Bearer lf_live_abcdefghijklmnopqrstuvwxyz0123456789'),
    method: 'GET',
    target: "/api/v1/loads?poNumber=O'Brien&page=2",
    listLoads: true,
    sentAt: 0,
    receivedAt: 1,
    status: 200,
    headers: {},
    body: null,
    bodyExcerpt: '',
    violations: [],
  };

  it('reads the key from the variable that holds it, never writing it, and quotes the URL for the shell', () => {
    const command = replayCommand(base, 'https://api.example.com');
    expect(command).toBe(`curl -sS -i -H "Authorization: Bearer $LOADFEED_API_KEY" 'https://api.example.com/api/v1/loads?poNumber=O'\\''Brien&page=2'`);
    expect(replayCommand({ ...base, credential: 'second' }, 'http://h')).toContain('$LOADFEED_SECOND_KEY');
    expect(replayCommand({ ...base, credential: 'none', authorization: null, method: 'POST' }, 'http://h')).toBe(`curl -sS -i -X POST 'http://h/api/v1/loads?poNumber=O'\\''Brien&page=2'`);
    expect(replayCommand({ ...base, credential: 'made-up' }, 'http://h')).not.toContain('abcdefgh');
  });
});
