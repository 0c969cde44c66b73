// One writer per copy, through the command line: a second `loadfeed sync` of a file that one is writing
// stops at once with a line (by `<file>.lock`, or the database's own file lock: DestinationCase.oneWriter in
// ../cli/copies.ts), a lock left by a killed run is taken over, and a copy that would keep nothing is refused
// before a request is made.
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openNdjsonDestination } from '../../src/destinations.js';
import { DESTINATIONS } from '../cli/copies.js';
import { runCli, useScratchFolder } from '../cli/run-cli.js';
import { row } from './rows.js';

const scratch = useScratchFolder();
// Nothing listens there: a run that got past opening its copy would fail to reach the API instead.
const ENV = { LOADFEED_BASE_URL: 'http://127.0.0.1:9', LOADFEED_API_KEY: 'lf_live_unused0000000000000000000000000000000' };

/** The destinations kept in one file, which a second writer is refused by the file's lock. */
const FILES = DESTINATIONS.flatMap((destination) => (destination.oneWriter ? [{ ...destination, ...destination.oneWriter }] : []));

describe.each(FILES)('loadfeed sync into $name while another run writes it', ({ args, open, refused }) => {
  it('stops at once with one line, and the first run goes on to write and close its copy', async () => {
    const file = join(scratch.path, 'held');
    const first = await open(file, true);
    try {
      const second = await runCli(['sync', ...args(file)], ENV);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(refused);
      await first.write([row(1, '2026-11-22T01:00:00.000Z')], '2026-11-22T01:00:00.000Z');
    } finally {
      await first.close();
    }
    const again = await open(file, true);
    expect(await again.loadCursor()).toBe('2026-11-22T01:00:00.000Z');
    await again.close();
  });
});

describe.each(FILES.flatMap(({ name, args, lockFile }) => (lockFile ? [{ name, args, lockFile }] : [])))('a lock of $name left by a killed run', ({ args, lockFile }) => {
  it('is taken over by the next run', async () => {
    const file = join(scratch.path, 'stale');
    // A process id no process has: the writer is gone.
    await writeFile(lockFile(file), JSON.stringify({ pid: 2 ** 22 + 1, host: (await import('node:os')).hostname() }));

    const result = await runCli(['sync', ...args(file)], ENV);

    expect(result.stderr).toMatch(/^loadfeed: cannot reach the API: /m);
    expect(result.stderr).not.toMatch(/another loadfeed sync/);
  });
});

describe('a copy that would keep nothing', () => {
  it.each([
    [['--sqlite', ''], 'loadfeed: --sqlite "" keeps nothing after the run: give the path of a database file\n'],
    [['--sqlite', ':memory:'], 'loadfeed: --sqlite ":memory:" keeps nothing after the run: give the path of a database file\n'],
    [['--duckdb', ':memory:'], 'loadfeed: --duckdb ":memory:" keeps nothing after the run: give the path of a database file\n'],
    [['--out', ''], 'loadfeed: --out "" keeps nothing: give the path of a file\n'],
  ])('%j is refused in one line with exit code 1', async (flags, line) => {
    const result = await runCli(['sync', ...flags], ENV, { cwd: scratch.path });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(line);
  });
});

describe('the lock of a file copy', () => {
  it('is one for every spelling of the file: a relative path and a symbolic link to it', async () => {
    const path = join(scratch.path, 'one.ndjson');
    await writeFile(path, '');
    await symlink(path, join(scratch.path, 'link.ndjson'));
    const first = await openNdjsonDestination(path, `${path}.state.json`);
    try {
      const viaLink = await runCli(['sync', '--out', 'link.ndjson'], ENV, { cwd: scratch.path });
      expect(viaLink.stderr).toMatch(/^loadfeed: another loadfeed sync is writing link\.ndjson now \(process \d+, \S+\/one\.ndjson\.lock\)/);
      expect(viaLink.code).toBe(1);
    } finally {
      await first.close();
    }
  });
});
