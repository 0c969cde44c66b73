// Rewrites server/README.md's configuration table from the settings' declaration (src/config/settings.ts,
// compiled to dist/ first by `npm run docs:config`); test/config/docs.test.ts fails while they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigurationTable } from '../dist/config/docs.js';

const readme = new URL('../README.md', import.meta.url);
const before = readFileSync(readme, 'utf8');
const after = withConfigurationTable(before);
if (after !== before) writeFileSync(readme, after);
console.log(after === before ? 'README.md: the configuration table is current' : 'README.md: configuration table rewritten');
