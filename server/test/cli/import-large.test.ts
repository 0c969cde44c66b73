// An import of 100,000 rows read from stdin, streamed: a problem that can only be seen at its last line (a
// loadNumber of line 1 again) still rejects all of it, naming that line. (Writing rows is tested with
// fewer; peak memory against the input's size is measured by `npm run bench:import`.)
import { beforeAll, describe, expect, it } from 'vitest';
import { generateLoads } from '../../src/seed/loads.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { cliOk, query, runCli } from './run-cli.js';

const ROWS = 100_000;

describe('loadfeed-server import of 100,000 rows from stdin', () => {
  const database = useTestDatabase();
  const env = () => ({ DATABASE_URL: database.url });
  let input: string;
  let firstLoadNumber: string;

  beforeAll(async () => {
    await cliOk(['migrate'], { env: env() });
    await cliOk(['customers', 'add', 'bulk'], { env: env() });
    const lines: string[] = [];
    for (const load of generateLoads({ seed: 'import-large', customerCode: 'bulk', count: ROWS, asOf: new Date() })) lines.push(JSON.stringify(load));
    firstLoadNumber = (JSON.parse(lines[0]!) as { loadNumber: string }).loadNumber;
    lines.push(lines[0]!);
    input = `${lines.join('\n')}\n`;
  }, 60_000);

  const stored = async () => (await query<{ n: number }>(database.url, 'SELECT count(*)::int AS n FROM loads'))[0]!.n;

  it('rejects all of it for a repeat on its last line, naming only that line, and writes nothing', async () => {
    const { code, stdout, stderr } = await runCli(['import', 'bulk', '-', '--json'], { env: env(), stdin: input });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toEqual({
      imported: false,
      error: 'nothing imported: 1 problem in the input',
      problems: [{ line: ROWS + 1, message: `loadNumber ${JSON.stringify(firstLoadNumber)} appears already on line 1` }],
    });
    expect(await stored()).toBe(0);
  }, 120_000);
});
