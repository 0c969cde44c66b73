import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // A kit run is a Playwright run against a real server; the full one waits out a real Retry-After.
    testTimeout: 240_000,
    hookTimeout: 120_000,
    // The fault runs go concurrently, but not so many that they starve the 2-core machine.
    maxConcurrency: 3,
  },
});
