// Installs the JavaScript runtimes the runtime matrix tests the SDK and the server on (sdk/test/runtimes/):
// Node 22, 24 and 26, Bun, Deno and workerd, each an exact version of its binary's package from the npm
// registry, each into a folder of its own under a cache outside the checkout (~/.cache/loadfeed/runtimes,
// or LOADFEED_RUNTIMES_DIR), so that a fresh clone on the same machine reuses them. Node 20 is the one
// running the tests; Chromium comes from Debian (scripts/provision.sh).
//
// Why not devDependencies: every contributor's `npm ci` would fetch ~900 MB of binaries, and four
// packages named `node` would put a `node` on npm's script PATH. The platform packages are installed
// rather than their wrappers (`bun`, `deno`, `workerd`), whose install scripts pick one of them.
//
//   node scripts/runtimes.mjs          installs what is missing (quiet when everything is there)
//   node scripts/runtimes.mjs --json   then prints {"node22": "/path/to/node", ...} for the tests
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const ARCH = { x64: 'x64', arm64: 'arm64' }[process.arch];
if (process.platform !== 'linux' || ARCH === undefined) {
  console.error(`runtimes: the matrix runs on Linux x64 or arm64 (this is ${process.platform}-${process.arch})`);
  process.exit(1);
}

/** Each runtime: its package (exact version) and where its binary lies in it. */
const RUNTIMES = {
  node22: { package: `node-linux-${ARCH}`, version: '22.23.3', binary: 'bin/node' },
  node24: { package: `node-linux-${ARCH}`, version: '24.21.0', binary: 'bin/node' },
  node26: { package: `node-linux-${ARCH}`, version: '26.12.1', binary: 'bin/node' },
  bun: { package: `@oven/bun-linux-${ARCH}`, version: '1.4.5', binary: 'bin/bun' },
  deno: { package: `@deno/linux-${ARCH}-glibc`, version: '2.9.6', binary: 'deno' },
  workerd: { package: `@cloudflare/workerd-linux-${ARCH === 'x64' ? '64' : 'arm64'}`, version: '1.20261117.1', binary: 'bin/workerd' },
};

const cache = process.env.LOADFEED_RUNTIMES_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'loadfeed', 'runtimes');

function binaryOf({ package: name, version, binary }) {
  return join(cache, `${name.replace('/', '+')}@${version}`, 'node_modules', name, binary);
}

/** Installs one runtime into a folder of its own: into a temporary one first, renamed when complete. */
function install(runtime) {
  const folder = join(cache, `${runtime.package.replace('/', '+')}@${runtime.version}`);
  const partial = `${folder}.partial-${process.pid}`;
  mkdirSync(partial, { recursive: true });
  try {
    execFileSync('npm', ['install', '--prefix', partial, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `${runtime.package}@${runtime.version}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Another run (the server's and the SDK's tests start together) may have finished the same one first:
    // its folder is kept, since its binary may be running.
    if (!existsSync(binaryOf(runtime))) {
      rmSync(folder, { recursive: true, force: true });
      renameSync(partial, folder);
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

const missing = Object.entries(RUNTIMES).filter(([, runtime]) => !existsSync(binaryOf(runtime)));
if (missing.length > 0) {
  console.error(`runtimes: installing ${missing.map(([, r]) => `${r.package}@${r.version}`).join(', ')} into ${cache}`);
  for (const [, runtime] of missing) install(runtime);
}
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(Object.fromEntries(Object.entries(RUNTIMES).map(([name, runtime]) => [name, binaryOf(runtime)]))));
}
