// Suspects kept in each destination, on a deployment that does not say how far its feed is settled: a
// load found absent is kept as a suspect (suspectedAt / suspected_at on its row, or the NDJSON file's
// <out>.suspects.ndjson) and not marked; the next run that still finds it absent marks it removed; one
// the feed serves again is cleared.
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { describe, expect, it } from 'vitest';
import { syncLoads, verifyCopy } from '../../src/index.js';
import { everyDestination, type DestinationCase } from '../cli/copies.js';
import { useScratchFolder } from '../cli/run-cli.js';
import { loadInput, mockSetup } from '../helpers.js';
import { freshCopy as freshCopyIn, LOADS, pickup, type Open } from './removal-fixture.js';

const scratch = useScratchFolder();
const customerDatabase = useTestDatabase();
const freshCopy = (destination: DestinationCase) => freshCopyIn(scratch.path, destination);

/** A mock deployment that never sends X-Feed-Settled-Through. */
const unsettledDeployment = () => mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000, settledThroughHeader: false } });

async function syncInto(open: Open, setup: ReturnType<typeof unsettledDeployment>) {
  await setup.clock.advance(10 * 60_000);
  const destination = await open(true);
  try {
    return await syncLoads({ client: setup.client, destination });
  } finally {
    await destination.close();
  }
}

async function suspectsIn(open: Open) {
  const copy = await open(true);
  try {
    return (await copy.removals!.loadSuspects!()).map((suspect) => suspect.loadNumber).sort();
  } finally {
    await copy.close();
  }
}

describe.each(everyDestination(customerDatabase))('suspects in $name, on a deployment without the settled header', (destinationCase) => {
  it('run 1 finds the absent loads and only keeps them as suspects; run 2, still not served, marks them removed', async () => {
    const open = freshCopy(destinationCase);
    const setup = unsettledDeployment();
    await syncInto(open, setup);
    setup.mock.remove(['L000003', 'L000077']);

    expect(await syncInto(open, setup)).toMatchObject({ removed: 0, removalsPending: 2 });
    expect(await suspectsIn(open)).toEqual(['L000003', 'L000077']);

    expect(await syncInto(open, setup)).toMatchObject({ removed: 2, removalsPending: 0 });
    expect(await suspectsIn(open)).toEqual([]);
    const copy = await open(false);
    try {
      expect(await verifyCopy({ client: setup.client, copy })).toMatchObject({ complete: true, removed: 2, served: 118 });
    } finally {
      await copy.close();
    }
  });

  it('a suspect the feed serves again is cleared, never marked', async () => {
    const open = freshCopy(destinationCase);
    const setup = unsettledDeployment();
    await syncInto(open, setup);
    setup.mock.remove(['L000010', 'L000090']);
    expect(await syncInto(open, setup)).toMatchObject({ removed: 0, removalsPending: 2 });
    setup.mock.upsert([loadInput(10, { scheduledPickupDate: pickup(10) }), loadInput(90, { scheduledPickupDate: pickup(90), miles: '7' })]);

    expect(await syncInto(open, setup)).toMatchObject({ removed: 0, removalsPending: 0 });
    expect(await suspectsIn(open)).toEqual([]);
    expect(await syncInto(open, setup)).toMatchObject({ removed: 0, removalsPending: 0 });
    const copy = await open(false);
    try {
      expect(await verifyCopy({ client: setup.client, copy })).toMatchObject({ complete: true, removed: 0, served: 120 });
    } finally {
      await copy.close();
    }
  });
});
