// The SDK's entry where Node's modules are (Node, Bun, Deno: the `node` export condition): everything of
// the web entry, and the cursor store that keeps the cursor in a file.
export * from './web.js';
export { fileCursorStore } from './cursor-store.js';
