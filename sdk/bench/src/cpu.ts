// CPU per page: the SDK's sync over recorded responses against a bare loop that fetches and parses the
// same responses and does nothing else. Both replay from memory, so neither pays for a server.
import { LIST_LOADS_PATH } from '@loadfeed/spec';
import { syncLoads } from '@loadfeed/sdk';
import { MOCK_API_KEY } from '@loadfeed/sdk/mock';
import { fixture } from './fixtures.js';

interface Recorded {
  status: number;
  headers: [string, string][];
  body: string;
}

export interface CpuResult {
  pages: number;
  bareMicrosPerPage: number;
  sdkMicrosPerPage: number;
  ratio: number;
}

function replay(recorded: Recorded[]) {
  let next = 0;
  return async (_request: Request) => {
    const { status, headers, body } = recorded[next++ % recorded.length]!;
    return new Response(body, { status, headers });
  };
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

export async function cpu(rows: number, perWrite: number, pageSize: number, rounds: number): Promise<CpuResult> {
  const { mock, client } = await fixture(rows, perWrite, 1_000_000_000);
  const recorded: Recorded[] = [];
  const queries: [string, string][][] = [];
  await syncLoads({
    client: client(async (request) => {
      const response = await mock.fetch(request);
      queries.push([...new URL(request.url).searchParams]);
      recorded.push({ status: response.status, headers: [...response.headers], body: await response.clone().text() });
      return response;
    }),
    pageSize,
    upsert: () => {},
  });

  async function bare(): Promise<number> {
    const fetch = replay(recorded);
    const start = cpuMicros();
    let rowsSeen = 0;
    // What any client must do per page: build the URL from the query, send the key, parse the body.
    for (const query of queries) {
      const url = new URL(LIST_LOADS_PATH, mock.baseUrl);
      for (const [name, value] of query) url.searchParams.append(name, value);
      const response = await fetch(new Request(url, { headers: { Authorization: `Bearer ${MOCK_API_KEY}` } }));
      const page = (await response.json()) as { data: unknown[] };
      rowsSeen += page.data.length;
    }
    if (rowsSeen === 0) throw new Error('the bare loop saw no rows');
    return cpuMicros() - start;
  }

  async function sdk(): Promise<number> {
    const start = cpuMicros();
    await syncLoads({ client: client(replay(recorded)), pageSize, upsert: () => {} });
    return cpuMicros() - start;
  }

  // Rounds alternate; the fastest round of each is the one least disturbed by other processes on the
  // machine, so the minimum is compared.
  let bareBest = Number.POSITIVE_INFINITY;
  let sdkBest = Number.POSITIVE_INFINITY;
  await bare();
  await sdk();
  for (let round = 0; round < rounds; round += 1) {
    bareBest = Math.min(bareBest, await bare());
    sdkBest = Math.min(sdkBest, await sdk());
  }
  const pages = recorded.length;
  const bareMicrosPerPage = bareBest / pages;
  const sdkMicrosPerPage = sdkBest / pages;
  return { pages, bareMicrosPerPage, sdkMicrosPerPage, ratio: sdkMicrosPerPage / bareMicrosPerPage };
}
