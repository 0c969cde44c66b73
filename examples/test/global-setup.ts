export { setup } from '@loadfeed/server/testing/vitest';
