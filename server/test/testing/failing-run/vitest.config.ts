// A test run with the server's global setup and one failing test, which exit-code.test.ts runs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['*.fixture.ts'],
    globalSetup: ['../../global-setup.ts'],
  },
});
