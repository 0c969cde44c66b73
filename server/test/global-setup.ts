export { setup } from '../src/testing/vitest.js';
