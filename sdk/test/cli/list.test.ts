// `loadfeed list` against the real reference server: one page as the API's JSON or as a table.
import { LOAD_STATUSES } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { loadInput } from '../helpers.js';
import { useTestServer, type Customer } from '../integration/fixture.js';
import { SLOW_TEST_MS, runCli, startCli } from './run-cli.js';

const kit = useTestServer();

let shared: Customer | undefined;
/** One customer with 12 loads in several statuses, created once for the file. */
async function customer(): Promise<Customer> {
  if (!shared) {
    shared = await kit.customer();
    await kit.server.importLoads(shared.code, Array.from({ length: 12 }, (_, index) => loadInput(index + 1, { destinationCity: 'Memphis', destinationState: 'TN' })));
  }
  return shared;
}

const list = async (args: string[]) => {
  const { key } = await customer();
  return runCli(['list', ...args], { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: key });
};

describe('loadfeed list', () => {
  it('--json prints the page exactly as the API serves it', async () => {
    const result = await list(['--json', '--page', '2', '--page-size', '5']);

    expect(result.code).toBe(0);
    const served = await (await customer()).client().listLoads({ page: 2, pageSize: 5 });
    expect(JSON.parse(result.stdout)).toEqual(served);
  });

  it('prints a table with a line per load under the column headings, and which page it is', async () => {
    const result = await list(['--page-size', '5']);

    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^LOAD +STATUS +ORIGIN +DESTINATION +PICKUP +DELIVERY +MILES +UPDATED$/);
    const served = await (await customer()).client().listLoads({ pageSize: 5 });
    served.data.forEach((load, index) => {
      const line = lines[index + 1]!;
      expect(line.startsWith(`${load.loadNumber}  `)).toBe(true);
      expect(line).toContain(load.status);
      expect(line).toContain('Dallas, TX');
      expect(line).toContain('Memphis, TN');
      expect(line).toContain(load.updatedAt);
    });
    expect(lines.at(-1)).toBe('page 1 of 3: loads 1-5 of 12; next: --page 2');
  });

  it('--status is repeatable and a load matches any of the statuses given', async () => {
    const [first, second] = [LOAD_STATUSES[1]!, LOAD_STATUSES[2]!];
    const wanted: string[] = [first, second];

    const result = await list(['--json', '--status', first, '--status', second]);

    expect(result.code).toBe(0);
    const page = JSON.parse(result.stdout) as { data: { status: string }[]; totalCount: number };
    const served = await (await customer()).served();
    expect(page.totalCount).toBe(served.filter((load) => wanted.includes(load.status)).length);
    expect(page.data.length).toBeGreaterThan(0);
    for (const load of page.data) expect(wanted).toContain(load.status);
  });

  it('--updated-since narrows the page to later changes, and an unparseable one is the server\'s 400 in one line', async () => {
    const future = await list(['--json', '--updated-since', '2999-01-01']);
    expect(future.code).toBe(0);
    expect(JSON.parse(future.stdout)).toMatchObject({ data: [], totalCount: 0, hasMore: false });

    const bad = await list(['--updated-since', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^loadfeed: the server rejected the query \(400\): .*updatedSince.*\n$/);
  });

  it('a page past the last one says so', async () => {
    const result = await list(['--page', '9']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('page 9 of 1: no loads on this page of 12\n');
  });
});

describe('loadfeed list and the rate limit', () => {
  it('says that it waits for a 429 to lift instead of looking stuck, and Ctrl-C ends the wait with exit code 130', async () => {
    const limited = await kit.customer(1);
    const env = { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: limited.key };
    expect((await runCli(['list'], env)).code).toBe(0);

    const waiting = startCli(['list'], env);
    await waiting.printed(/loadfeed: status 429; retrying in \d+s/);
    waiting.child.kill('SIGINT');
    const result = await waiting.done;

    expect(result.code).toBe(130);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('loadfeed: interrupted');
  }, SLOW_TEST_MS);
});
