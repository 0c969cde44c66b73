import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // Each test runs an example, the server's CLI or the conformance kit as child processes.
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
