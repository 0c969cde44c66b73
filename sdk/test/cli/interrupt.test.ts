// Ctrl-C (or SIGTERM) during `loadfeed sync`: the command stops at once (here: in a wait for quota),
// keeps every row and the cursor it saved, exits 130, and the next run resumes from that cursor.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESTINATIONS, byLoadNumber } from './copies.js';
import { LOADS, usePacedServer } from './paced-server.js';
import { SLOW_TEST_MS, runCli, startCli, useScratchFolder } from './run-cli.js';

const paced = usePacedServer();
const scratch = useScratchFolder();

describe.each(DESTINATIONS)('Ctrl-C during loadfeed sync into $name', (destination) => {
  it('stops cleanly with exit code 130, keeps the saved cursor and its rows, and a re-run resumes from there', async () => {
    const customer = await paced.customer();
    const file = join(scratch.path, customer.code);
    const sync = startCli(['sync', ...destination.args(file), '--page-size', '5'], { LOADFEED_BASE_URL: paced.baseUrl, LOADFEED_API_KEY: customer.slowKey });

    await sync.printed('waiting for quota');
    const interruptedAt = Date.now();
    sync.child.kill('SIGINT');
    const stopped = await sync.done;

    // At once: not after the minute-long wait for quota it was in (a loaded CI machine gets some slack).
    expect(Date.now() - interruptedAt).toBeLessThan(20_000);
    expect(stopped.code).toBe(130);
    const reason = /^loadfeed: interrupted; stopped cleanly at cursor (\S+), the next run resumes from there$/m.exec(stopped.stderr);
    expect(reason, stopped.stderr).not.toBeNull();
    const partial = await destination.read(file);
    expect(partial.cursor).toBe(reason![1]);
    // Everything up to the cursor, nothing twice, and the cursor is the newest row it holds.
    expect(partial.loads.length).toBeGreaterThan(0);
    expect(partial.loads.length).toBeLessThan(LOADS);
    expect(new Set(partial.loads.map((load) => load.loadNumber)).size).toBe(partial.loads.length);
    expect(partial.loads.map((load) => load.updatedAt).sort().at(-1)).toBe(partial.cursor);

    const resumed = await runCli(['sync', ...destination.args(file)], { LOADFEED_BASE_URL: paced.baseUrl, LOADFEED_API_KEY: customer.fastKey });

    expect(resumed.code).toBe(0);
    // From the cursor minus the 5-minute overlap: the loads after it, plus the one at it.
    const handedOver = Number(/^synced (\d+) rows/.exec(resumed.stdout)?.[1]);
    expect(handedOver).toBe(LOADS - partial.loads.length + 1);
    const complete = await destination.read(file);
    expect(complete.loads).toHaveLength(LOADS);
    expect(byLoadNumber(complete.loads).map((load) => load.loadNumber)).toEqual(Array.from({ length: LOADS }, (_, index) => `L${String(index + 1).padStart(6, '0')}`));
  }, SLOW_TEST_MS);
});

describe('SIGTERM during loadfeed sync, as a scheduler stops a job', () => {
  it('stops the same clean way with exit code 143 and keeps the cursor', async () => {
    const customer = await paced.customer();
    const file = join(scratch.path, `${customer.code}-term`);
    const sync = startCli(['sync', ...DESTINATIONS[0]!.args(file), '--page-size', '5'], { LOADFEED_BASE_URL: paced.baseUrl, LOADFEED_API_KEY: customer.slowKey });

    await sync.printed('waiting for quota');
    sync.child.kill('SIGTERM');
    const stopped = await sync.done;

    expect(stopped.code).toBe(143);
    const reason = /^loadfeed: terminated; stopped cleanly at cursor (\S+), the next run resumes from there$/m.exec(stopped.stderr);
    expect(reason, stopped.stderr).not.toBeNull();
    expect((await DESTINATIONS[0]!.read(file)).cursor).toBe(reason![1]);
  }, SLOW_TEST_MS);
});
