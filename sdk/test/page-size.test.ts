// The page size a sync asks for: the contract's maximum unless the caller sets one, then what the
// deployment echoes; a deployment that refuses the large size with a 400 gets SPEC's default instead, once,
// and the sync says so.
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { BadRequestError, createClient, syncLoads, type PageSizeRefusal } from '../src/index.js';
import { MOCK_API_KEY, createMockApi, createSimulatedClock } from '../src/mock/index.js';
import { createCopy, loadInputs } from './helpers.js';

/** A mock deployment that serves up to `maxPageSize`, and the page sizes each request asked for. */
function deployment(options: { maxPageSize: number; refuseAbove?: number; loads: number }) {
  const clock = createSimulatedClock();
  const mock = createMockApi({ clock, rateLimitPerMinute: 1_000_000, maxPageSize: options.maxPageSize });
  for (const input of loadInputs(options.loads)) mock.upsert([input]);
  const asked: number[] = [];
  const client = createClient({
    baseUrl: mock.baseUrl,
    apiKey: MOCK_API_KEY,
    clock,
    async fetch(request) {
      const size = Number(new URL(request.url).searchParams.get('pageSize'));
      asked.push(size);
      if (options.refuseAbove !== undefined && size > options.refuseAbove) {
        const body = { error: 'Invalid query parameters', details: [`pageSize: must be at most ${options.refuseAbove}`] };
        return new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/json' } });
      }
      return mock.fetch(request);
    },
  });
  return { mock, client, asked };
}

describe('the page size of a sync', () => {
  it.each([100, 250, 1000])('asks for the contract maximum, then for what a deployment serving %i echoes, in the fewest requests', async (maxPageSize) => {
    const { mock, client, asked } = deployment({ maxPageSize, loads: 2_345 });
    const copy = createCopy();

    const summary = await syncLoads({ client, upsert: copy.upsert });

    expect(copy.differences(mock.loads())).toEqual([]);
    expect(asked[0]).toBe(PAGE_SIZE_CEILING);
    expect(new Set(asked.slice(1))).toEqual(new Set([maxPageSize]));
    expect(summary.pageSize).toBe(maxPageSize);
    expect(summary.requests).toBeLessThanOrEqual(Math.ceil(2_345 / (maxPageSize - 1)) + 1);
  });

  it('falls back to SPEC default once, and says so, where a deployment refuses the large page with a 400', async () => {
    const { mock, client, asked } = deployment({ maxPageSize: 500, refuseAbove: 500, loads: 260 });
    const copy = createCopy();
    const refusals: PageSizeRefusal[] = [];

    const summary = await syncLoads({ client, upsert: copy.upsert, onPageSizeRefused: (refusal) => refusals.push(refusal) });

    expect(copy.differences(mock.loads())).toEqual([]);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ requested: PAGE_SIZE_CEILING, fallback: DEFAULT_PAGE_SIZE });
    expect(refusals[0]!.error.details).toEqual(['pageSize: must be at most 500']);
    expect(asked).toEqual([PAGE_SIZE_CEILING, DEFAULT_PAGE_SIZE, DEFAULT_PAGE_SIZE, DEFAULT_PAGE_SIZE]);
    expect(summary.pageSize).toBe(DEFAULT_PAGE_SIZE);
  });

  it('never overrides a page size the caller chose: the 400 is the caller’s to see', async () => {
    const { client, asked } = deployment({ maxPageSize: 100, refuseAbove: 100, loads: 10 });
    const refusals: PageSizeRefusal[] = [];

    await expect(syncLoads({ client, upsert: () => {}, pageSize: 200, onPageSizeRefused: (refusal) => refusals.push(refusal) })).rejects.toBeInstanceOf(BadRequestError);
    expect(refusals).toEqual([]);
    expect(asked).toEqual([200]);
  });
});
