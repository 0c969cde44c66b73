// `npm run test:deploy`: the opt-in deployment test (the image built, compose.yaml run with podman). It
// needs podman and runc (scripts/provision-deploy.sh) and minutes, so `npm test` leaves it out.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/deploy/*.deploy-test.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
