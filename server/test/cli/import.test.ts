import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { feedWindowStart } from '@loadfeed/spec';
import { MAX_LINE_BYTES } from '../../src/loads/ndjson-lines.js';
import { generateLoads, type SeedLoad } from '../../src/seed/loads.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { CLI, cliEnv, cliOk, collect, exited, query, runCli } from './run-cli.js';

function ndjson(loads: readonly unknown[]): string {
  return loads.map((load) => (typeof load === 'string' ? load : JSON.stringify(load))).join('\n') + '\n';
}

const loads: SeedLoad[] = [...generateLoads({ seed: 'import', customerCode: 'acme', count: 41, asOf: new Date() })];
/** What the import says it will not serve of these loads (test/cli/import-not-served.test.ts checks the rule). */
function notServedOf(some: readonly SeedLoad[]) {
  const start = feedWindowStart(new Date());
  const windowStart = start.toISOString().slice(0, 10);
  const before = some.filter((load) => load.scheduledPickupDate !== null && new Date(load.scheduledPickupDate) < start).length;
  return { notServed: { beforeWindow: before, noPickupDate: some.filter((load) => load.scheduledPickupDate === null).length, windowStart } };
}
const summaryLineOf = (some: readonly SeedLoad[]) => {
  const { beforeWindow, noPickupDate, windowStart } = notServedOf(some).notServed;
  return beforeWindow + noPickupDate === 0
    ? ''
    : `not served: ${beforeWindow + noPickupDate} of them (${beforeWindow} before the feed's 12-month window, which starts ${windowStart}; ${noPickupDate} without a scheduledPickupDate)\n`;
};

describe('loadfeed-server import', () => {
  const database = useTestDatabase();
  const env = () => ({ DATABASE_URL: database.url });
  let folder: string;

  const file = async (name: string, content: string): Promise<string> => {
    const path = join(folder, name);
    await writeFile(path, content);
    return path;
  };
  const stored = () => query<{ load_number: string; updated_at: Date }>(database.url, 'SELECT load_number, updated_at FROM loads ORDER BY load_number');

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'loadfeed-import-'));
    await cliOk(['migrate'], { env: env() });
    await cliOk(['customers', 'add', 'acme'], { env: env() });
  });

  it('imports nothing when any line is bad, and names every bad line with its reason', async () => {
    const path = await file(
      'bad.ndjson',
      ndjson([
        loads[0],
        { ...loads[1], status: 'Lost' },
        'this is not json',
        loads[2],
        { ...loads[3], updatedAt: '2026-01-01T00:00:00.000Z', originState: 'Texas' },
        loads[0],
      ]),
    );
    const { code, stdout, stderr } = await runCli(['import', 'acme', path], { env: env() });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines.slice(0, -1)).toEqual([
      expect.stringMatching(/^line 2: status must be one of PrePlanning, .* \(got "Lost"\)$/),
      expect.stringMatching(/^line 3: not JSON/),
      expect.stringMatching(/^line 5: originState must be a string matching/),
      expect.stringMatching(/^line 5: updatedAt is kept by the server/),
      `line 6: loadNumber ${JSON.stringify(loads[0]!.loadNumber)} appears already on line 1`,
    ]);
    expect(lines.at(-1)).toBe('loadfeed-server: nothing imported: 5 problems in the input');
    expect(await stored()).toEqual([]);

    const json = await runCli(['import', 'acme', path, '--json'], { env: env() });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ imported: false, problems: expect.arrayContaining([{ line: 3, message: expect.stringMatching(/^not JSON/) }]) });
    expect(await stored()).toEqual([]);
  });

  it('upserts a file, and a second import of it reports every row unchanged and keeps every updatedAt', async () => {
    const path = await file('loads.ndjson', ndjson(loads.slice(0, 30)));
    expect(await cliOk(['import', 'acme', path], { env: env() })).toBe(`imported for acme: 30 inserted, 0 changed, 0 unchanged\n${summaryLineOf(loads.slice(0, 30))}`);
    const before = await stored();
    expect(before).toHaveLength(30);
    expect(JSON.parse(await cliOk(['import', 'acme', path, '--json'], { env: env() }))).toEqual({ inserted: 0, changed: 0, unchanged: 30, ...notServedOf(loads.slice(0, 30)) });
    expect(await stored()).toEqual(before);
  });

  it('reads stdin for `-`, and counts changed rows apart from unchanged ones', async () => {
    const input = ndjson([{ ...loads[0], totalCost: '99999.99' }, loads[1], ...loads.slice(30, 35)]);
    const summary = JSON.parse(await cliOk(['import', 'acme', '-', '--json'], { env: env(), stdin: input }));
    expect(summary).toEqual({ inserted: 5, changed: 1, unchanged: 1, ...notServedOf([loads[0]!, loads[1]!, ...loads.slice(30, 35)]) });
  });

  it('reads a file with a byte order mark and Windows line ends', async () => {
    const path = await file('windows.ndjson', `\uFEFF${JSON.stringify(loads[38])}\r\n${JSON.stringify(loads[39])}\r\n`);
    expect(JSON.parse(await cliOk(['import', 'acme', path, '--json'], { env: env() }))).toEqual({ inserted: 2, changed: 0, unchanged: 0, ...notServedOf([loads[38]!, loads[39]!]) });
  });

  it('with --skip-invalid imports the good lines and still names the bad ones', async () => {
    const path = await file('mixed.ndjson', ndjson([loads[36], { loadNumber: '', status: 'Available' }, loads[37]]));
    const { code, stdout, stderr } = await runCli(['import', 'acme', path, '--skip-invalid'], { env: env() });
    expect(code).toBe(0);
    expect(stdout).toBe(`imported for acme: 2 inserted, 0 changed, 0 unchanged, 1 line(s) skipped\n${summaryLineOf([loads[36]!, loads[37]!])}`);
    expect(stderr).toMatch(/^line 2: loadNumber /);
  });

  it('names a value too long for the database (a 5 MB field) with its line and field, before anything is written, also with --skip-invalid', async () => {
    const huge = 'x'.repeat(5 * 1024 * 1024);
    const fresh = { ...loads[31], loadNumber: 'NEW-BESIDE-HUGE' };
    const path = await file('huge.ndjson', ndjson([fresh, { ...loads[32], poNumber: huge }, { ...loads[33], status: 'Lost' }, { ...loads[34], loadNumber: huge }]));
    const refused = await runCli(['import', 'acme', path], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n')).toEqual([
      `line 2: poNumber is too long: ${huge.length} characters, at most 255`,
      expect.stringMatching(/^line 3: status must be one of /),
      `line 4: loadNumber is too long: ${huge.length} characters, at most 255`,
      'loadfeed-server: nothing imported: 3 problems in the input',
    ]);
    const before = await stored();
    expect(before.map((row) => row.load_number)).not.toContain(fresh.loadNumber);

    const skipped = await runCli(['import', 'acme', path, '--skip-invalid', '--json'], { env: env() });
    expect(skipped.code).toBe(0);
    expect(JSON.parse(skipped.stdout)).toEqual({
      inserted: 1,
      changed: 0,
      unchanged: 0,
      skipped: 3,
      ...notServedOf([loads[31]!]),
      problems: [
        { line: 2, message: `poNumber is too long: ${huge.length} characters, at most 255` },
        { line: 3, message: expect.stringMatching(/^status must be one of /) },
        { line: 4, message: `loadNumber is too long: ${huge.length} characters, at most 255` },
      ],
    });
    expect(skipped.stdout.length).toBeLessThan(1000);
  });

  it('names a line too long to read with one error line, never a stack, and with --skip-invalid imports the lines around it', async () => {
    const path = join(folder, 'long-line.ndjson');
    const long = `{"loadNumber":"${'9'.repeat(MAX_LINE_BYTES)}","status":"Available"}`;
    await writeFile(path, ndjson([{ ...loads[20], loadNumber: 'BESIDE-LONG-1' }, long, { ...loads[21], loadNumber: 'BESIDE-LONG-2' }]));
    const refused = await runCli(['import', 'acme', path], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n')).toEqual([
      `line 2: line too long: ${Buffer.byteLength(long)} bytes, at most ${MAX_LINE_BYTES} (a Load is a few hundred bytes; no valid one passes 40 kB)`,
      'loadfeed-server: nothing imported: 1 problem in the input',
    ]);
    const skipped = await runCli(['import', 'acme', path, '--skip-invalid', '--json'], { env: env() });
    expect(JSON.parse(skipped.stdout)).toMatchObject({ inserted: 2, skipped: 1, problems: [{ line: 2, message: expect.stringMatching(/^line too long/) }] });
  });

  it('names each line PostgreSQL could not store, or that is not UTF-8, and imports the rest with --skip-invalid', async () => {
    const input = Buffer.concat([
      Buffer.from(`${JSON.stringify({ ...loads[22], loadNumber: 'GOOD-1' })}\n`),
      Buffer.from(`{"loadNumber":"SURROGATE","status":"Available","originCity":"A\\udc00"}\n`),
      Buffer.from('{"loadNumber":"BYTES","status":"Available","originCity":"U'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('1"}\n'),
      Buffer.from('{"loadNumber":"NUL","status":"Available","poNumber":"a\\u0000b"}\n'),
      Buffer.from('{"loadNumber":"PROTO","status":"Available","__proto__":{"poNumber":"x"}}\n'),
      Buffer.from(`${JSON.stringify({ ...loads[23], loadNumber: 'GOOD-2' })}\n`),
    ]);
    const path = join(folder, 'unstorable.ndjson');
    await writeFile(path, input);
    const refused = await runCli(['import', 'acme', path], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^line 2: originCity holds a lone surrogate /),
      expect.stringMatching(/^line 3: not UTF-8/),
      expect.stringMatching(/^line 4: poNumber holds a NUL character /),
      'line 5: "__proto__" is not a Load field',
      'loadfeed-server: nothing imported: 4 problems in the input',
    ]);
    const skipped = await runCli(['import', 'acme', path, '--skip-invalid'], { env: env() });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/^imported for acme: 2 inserted, 0 changed, 0 unchanged, 4 line\(s\) skipped\n/);
    const numbers = (await stored()).map((row) => row.load_number);
    expect(numbers).toEqual(expect.arrayContaining(['GOOD-1', 'GOOD-2']));
    for (const refusedNumber of ['SURROGATE', 'BYTES', 'NUL', 'PROTO']) expect(numbers).not.toContain(refusedNumber);
  });

  it('fails for an unknown customer at once, without waiting for input that has not come', async () => {
    // stdin left open and empty: an operator at a terminal, or a pipe whose writer has not written yet.
    const child = spawn(process.execPath, [CLI, 'import', 'nobody', '-'], { env: cliEnv(env()), stdio: ['pipe', 'pipe', 'pipe'] });
    const stderr = collect(child.stderr!);
    try {
      const ended = await Promise.race([exited(child), new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000))]);
      expect(ended).toBe(1);
      expect((await stderr).trimEnd()).toMatch(/^loadfeed-server: no customer has the code "nobody"/);
    } finally {
      child.stdin!.end();
      child.kill();
    }
  });

  it.each([
    [['import', 'nobody', '-'], /^loadfeed-server: no customer has the code "nobody"/],
    [['import', 'acme', '/no/such/file.ndjson'], /^loadfeed-server: cannot read \/no\/such\/file\.ndjson: no such file$/],
  ])('%j exits 1 with a one-line reason', async (args, reason) => {
    const { code, stderr } = await runCli(args, { env: env(), stdin: ndjson([loads[40]]) });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr.trimEnd()).toMatch(reason);
  });
});
