import { expect, it } from 'vitest';
import { useTestDatabase } from '../../../src/testing/vitest.js';

const database = useTestDatabase();

it('fails on purpose, after using its database', () => {
  expect(database.url).toMatch(/^postgres:/);
  expect('this run').toBe('a failure');
});
