// The client's error tree against the real server: each status becomes its class, with the request id.
import { describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, RateLimitError, createClient, type ListLoadsParams } from '../../src/index.js';
import { loadInputs } from '../helpers.js';
import { useTestServer } from './fixture.js';

const kit = useTestServer();

describe('the client against the reference server', () => {
  it('reads typed pages, with status sent once per value', async () => {
    const customer = await kit.customer();
    await kit.server.importLoads(customer.code, loadInputs(30));
    const page = await customer.client().listLoads({ status: ['Delivered', 'Covered'], pageSize: 50 });
    expect(page.data.length).toBeGreaterThan(0);
    expect(new Set(page.data.map((row) => row.status))).toEqual(new Set(['Delivered', 'Covered']));
    expect(kit.violations).toEqual([]);
  });

  it('a 400 is a BadRequestError with details and the request id, and is not retried', async () => {
    const customer = await kit.customer();
    let attempts = 0;
    const client = customer.client({ fetch: (request) => (attempts++, fetch(request)) });
    const error = await client.listLoads({ updatedSince: 'yesterday' } as ListLoadsParams).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).details.join(' ')).toContain('updatedSince');
    expect((error as BadRequestError).requestId).toBeTruthy();
    expect(attempts).toBe(1);
  });

  it('a revoked key is an AuthenticationError, not retried', async () => {
    const customer = await kit.customer();
    const { id, key } = await kit.server.createKey(customer.code);
    await kit.server.revokeKey(id);
    let attempts = 0;
    const client = createClient({ baseUrl: kit.server.baseUrl, apiKey: key, fetch: (request) => (attempts++, fetch(request)) });
    const error = await client.listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect(attempts).toBe(1);
  });

  it("a 429 whose Retry-After would pass the caller's deadline is a RateLimitError that says when to resume", async () => {
    const customer = await kit.customer(1);
    const other = customer.client();
    await other.listLoads({ pageSize: 1 });
    const client = customer.client();
    const now = Date.now();
    const error = await client.listLoads({ pageSize: 1 }, { deadline: now + 1_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    const { retryAfter, resumeAt } = error as RateLimitError;
    expect(retryAfter).toBeGreaterThan(50);
    expect(resumeAt).toBeGreaterThanOrEqual(now + retryAfter! * 1000);
  });
});
