// `npm ci`'s prepare step (and `npm run build`): builds every package with `tsc -b`, saying which package
// it builds as it goes, since tsc alone prints nothing for the minutes a fresh clone's build takes.
// Compiler errors pass through as tsc prints them, and the exit code is tsc's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const started = Date.now();
console.log('loadfeed: building every package (tsc -b): a few minutes on a fresh clone, seconds after that');
const child = spawn(process.execPath, [tsc, '-b', '--verbose', ...process.argv.slice(2)], { stdio: ['ignore', 'pipe', 'inherit'] });
for await (const line of createInterface({ input: child.stdout })) {
  const building = /Building project '(?:.*\/)?([^/]+)\/tsconfig\.json'/.exec(line);
  if (building) console.log(`loadfeed: building ${building[1]}`);
  // tsc's own progress lines start with a time; everything else (errors and their context) is shown.
  else if (!/^\s*(\d{1,2}:\d{2}:\d{2}|\* )/.test(line) && line.trim() !== '') console.log(line);
}
const code = await new Promise((resolve) => child.on('close', resolve));
console.log(code === 0 ? `loadfeed: built in ${Math.round((Date.now() - started) / 1000)} s` : `loadfeed: the build failed (tsc exit ${code})`);
process.exitCode = code ?? 1;
