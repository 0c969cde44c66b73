// Removes from the image's node_modules every package the server does not need at run time. npm ci
// --omit=dev keeps a package that the workspaces' lock file does not mark as dev-only (playwright-core, a
// dev dependency of two workspaces, is one), so the set is computed here instead: the closure of the
// dependencies of server/ and spec/, resolved as Node resolves them (the nearest node_modules upward).
//   node prune.mjs <app folder>
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const app = process.argv[2];
const needed = new Set();
const manifest = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));

function resolve(from, name) {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (folder === app || folder === dirname(folder)) return undefined;
  }
}

function visit(folder) {
  const { dependencies = {}, optionalDependencies = {} } = manifest(folder);
  for (const name of Object.keys({ ...dependencies, ...optionalDependencies })) {
    const found = resolve(folder, name);
    if (found === undefined) {
      if (name in optionalDependencies) continue;
      throw new Error(`${folder} needs ${name}, which is not installed`);
    }
    if (needed.has(found)) continue;
    needed.add(found);
    visit(found);
  }
}
for (const workspace of ['server', 'spec']) visit(join(app, workspace));

let removed = 0;
const top = join(app, 'node_modules');
for (const entry of readdirSync(top)) {
  if (entry.startsWith('.')) continue;
  const names = entry.startsWith('@') ? readdirSync(join(top, entry)).map((name) => join(entry, name)) : [entry];
  for (const name of names) {
    const folder = join(top, name);
    // The workspaces' own links (node_modules/@loadfeed/*) stay: they are how the server finds spec.
    if (!needed.has(folder) && !name.startsWith('@loadfeed/')) {
      rmSync(folder, { recursive: true, force: true });
      removed += 1;
    }
  }
}
rmSync(join(top, '.bin'), { recursive: true, force: true });
console.log(`prune: kept ${needed.size} packages, removed ${removed}`);
