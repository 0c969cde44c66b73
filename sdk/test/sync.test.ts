import { describe, expect, it } from 'vitest';
import { syncLoads } from '../src/index.js';
import { createCopy, loadInput, loadInputs, mockSetup } from './helpers.js';

describe('syncLoads, key walk', () => {
  it('copies every row of a dataset with distinct timestamps', async () => {
    const { mock, client, violations } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
    for (const input of loadInputs(250)) mock.upsert([input]);
    const copy = createCopy();
    const summary = await syncLoads({ client, upsert: copy.upsert });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(summary.rows).toBe(250);
    expect(violations).toEqual([]);
  });

  it('copies every row when all rows share one updatedAt', async () => {
    const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1000, loads: loadInputs(450) } });
    const copy = createCopy();
    const summary = await syncLoads({ client, upsert: copy.upsert });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(summary.rows).toBe(450);
  });
});
