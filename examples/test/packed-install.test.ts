// The kit as someone outside this repository gets it: the packages packed and installed by README.md's own
// blocks, as pasted (a new user's home in the system's temp folder, so ~/loadfeed-packs starts missing),
// into an empty project there, and then every package README's pack and install blocks run into the same
// project; README.md's customer, third-party and operator quickstarts then run there with only that
// project's commands and modules, against a reference server started from this checkout.
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { type LoadPage } from '@loadfeed/spec';
import { checkLoadPage } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSection } from './readme.js';
import { query } from './sqlite.js';
import { CHECKOUT, EXAMPLES, freePort, run, useReferenceServer } from './support.js';

/** The most a package's tarball may weigh (gzipped). */
const MAX_TARBALL_BYTES = 256_000;
const PACKAGES = ['@loadfeed/spec', '@loadfeed/sdk', '@loadfeed/server', '@loadfeed/conformance'] as const;

/** What each tarball must carry for its package to work where it is installed. */
const MUST_CARRY: Record<(typeof PACKAGES)[number], string[]> = {
  '@loadfeed/spec': ['README.md', 'SPEC.md', 'DECISIONS.md', 'openapi.yaml', 'generated/schema.d.ts', 'dist/index.js', 'dist/index.d.ts'],
  '@loadfeed/sdk': ['README.md', 'bin/loadfeed.js', 'dist/index.js', 'dist/index.d.ts', 'dist/mock/index.js', 'dist/cli/main.js'],
  '@loadfeed/server': ['README.md', 'bin/loadfeed-server.js', 'dist/index.js', 'dist/cli/main.js', 'dist/testing/index.js', 'migrations/0001_customers-and-api-keys.sql', 'sql/order.txt', 'sql/functions/admit_request.sql'],
  '@loadfeed/conformance': ['README.md', 'bin/loadfeed-conformance.js', 'dist/playwright.config.js', 'dist/src/cli.js'],
};

interface Packed {
  name: string;
  version: string;
  filename: string;
  size: number;
  files: { path: string }[];
}

const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'];
/** The package READMEs whose pack and install blocks run after README.md's, into the same project. */
const PACKAGE_READMES = ['conformance', 'sdk', 'server'] as const;

/** An empty project (a package.json and nothing else) in a new folder outside this checkout. */
async function emptyProject(parent: string, name: string): Promise<string> {
  const path = join(parent, name);
  await mkdir(path);
  await writeFile(join(path, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module' }, null, 2)}\n`);
  return path;
}

async function npmInstall(project: string, specs: string[]): Promise<void> {
  const result = await run('npm', [...NPM_INSTALL, ...specs], { cwd: project, outsideCheckout: true });
  expect(result.code, `npm install in ${project} failed:\n${result.stderr}`).toBe(0);
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('the packed tarballs, installed in an empty project outside the repository', () => {
  const reference = useReferenceServer();
  const database = useTestDatabase();
  let outside: string;
  let project: string;
  let packed: Packed[];
  /** A new user's home: README's ~/loadfeed-packs is made by its own command; npm's cache stays the machine's. */
  let home: Record<string, string>;
  const tarball = (name: string) => join(outside, 'loadfeed-packs', packed.find((entry) => entry.name === name)!.filename);

  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'loadfeed-outside-'));
    // npm's settings, not the commands: the machine's cache, read first, and no audit or funding requests.
    home = { HOME: outside, npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    await runSection('pack', { cwd: CHECKOUT, work: outside, env: home });
    // What the tarballs hold, read with npm pack --json from the folder the README filled.
    const contents = await run('npm', ['pack', ...PACKAGES.flatMap((name) => ['-w', name]), '--dry-run', '--json'], { cwd: CHECKOUT });
    expect(contents.code, `npm pack --dry-run failed:\n${contents.stderr}`).toBe(0);
    packed = JSON.parse(contents.stdout) as Packed[];
    for (const entry of packed) expect(await exists(tarball(entry.name)), `README.md's pack block wrote ${entry.filename}`).toBe(true);

    project = await emptyProject(outside, 'customer-project');
    await runSection('install', { cwd: project, work: outside, env: home, outsideCheckout: true });
    for (const name of PACKAGE_READMES) {
      await runSection(`pack-${name}`, { cwd: CHECKOUT, work: outside, env: home });
      await runSection(`install-${name}`, { cwd: project, work: outside, env: home, outsideCheckout: true });
    }
    // The SQLite quickstart needs better-sqlite3, which the user installs beside the SDK. Its install
    // script builds a native addon: prebuilt ones come from GitHub, out of this machine's reach, and a build
    // takes minutes. So scripts are off and the addon this checkout built for the same version is put in
    // its place; none of the kit's own packages has an install script.
    const sqlite = dirname(createRequire(join(EXAMPLES, 'package.json')).resolve('better-sqlite3/package.json'));
    const { version: sqliteVersion } = JSON.parse(await readFile(join(sqlite, 'package.json'), 'utf8')) as { version: string };
    await npmInstall(project, [`better-sqlite3@${sqliteVersion}`]);
    const addon = join('build', 'Release', 'better_sqlite3.node');
    await mkdir(join(project, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
    await copyFile(join(sqlite, addon), join(project, 'node_modules', 'better-sqlite3', addon));
  }, 480_000);
  afterAll(async () => {
    if (outside) await rm(outside, { recursive: true, force: true });
  });

  it('each tarball carries what its package needs and depends on the others by version', () => {
    expect(packed.map((entry) => entry.name).sort()).toEqual([...PACKAGES].sort());
    for (const entry of packed) {
      const paths = entry.files.map((file) => file.path);
      for (const path of MUST_CARRY[entry.name as (typeof PACKAGES)[number]]) expect(paths, `${entry.filename} lacks ${path}`).toContain(path);
      expect(paths.filter((path) => /(^|\/)(test|bench)\/|tsbuildinfo$/.test(path)), entry.filename).toEqual([]);
      // A bound that catches a folder of data or a build cache shipped by mistake, not growth of the code:
      // the largest, the server's, was 200 KB (gzipped) with tracing, drift checks and the filter indexes.
      expect(entry.size, `${entry.filename} is ${entry.size} bytes`).toBeLessThan(MAX_TARBALL_BYTES);
    }
  });

  it('installs each package from its tarball with only the tarballs it depends on; the SDK needs no better-sqlite3', async () => {
    const spec = packed.find((entry) => entry.name === '@loadfeed/spec')!;
    const sdkOnly = await emptyProject(outside, 'sdk-only');
    await npmInstall(sdkOnly, [tarball('@loadfeed/spec'), tarball('@loadfeed/sdk')]);
    expect(await exists(join(sdkOnly, 'node_modules', 'better-sqlite3'))).toBe(false);
    const imported = await run('node', ['--input-type=module', '-e', "const sdk = await import('@loadfeed/sdk'); console.log(typeof sdk.createClient, typeof sdk.syncLoads)"], { cwd: sdkOnly, outsideCheckout: true });
    expect(imported.stdout + imported.stderr).toBe('function function\n');
    for (const name of ['@loadfeed/sdk', '@loadfeed/server', '@loadfeed/conformance']) {
      const manifest = JSON.parse(await readFile(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(manifest.dependencies['@loadfeed/spec'], name).toBe(spec.version);
    }
  });

  it("finds the SDK and the three commands in that project's node_modules, not in this checkout", async () => {
    const where = await run(
      'bash',
      ['-c', `node --input-type=module -e "console.log(import.meta.resolve('@loadfeed/sdk'))" && npm exec --no -c 'readlink -f "$(command -v loadfeed)" "$(command -v loadfeed-server)" "$(command -v loadfeed-conformance)"'`],
      { cwd: project, outsideCheckout: true },
    );
    expect(where.code, where.stderr).toBe(0);
    const found = where.stdout.trim().split('\n');
    expect(found).toHaveLength(4);
    for (const path of found) expect(path.replace(/^file:\/\//, '')).toContain(join(project, 'node_modules', '@loadfeed'));
  });

  describe('README.md quickstarts, run in that project', () => {
    let env: Record<string, string>;
    let loads: number;
    beforeAll(async () => {
      ({ env, loads } = await reference.quickstartCustomer(40));
    });

    it('customer developer: loadfeed list, loadfeed sync --sqlite and the syncLoads snippet copy every load', async () => {
      const result = await runSection('customer', { cwd: project, work: project, env, outsideCheckout: true });
      expect(query(join(project, 'loads.db'), 'SELECT * FROM loads')).toHaveLength(loads);
      expect(result.stdout).toContain(`${loads} rows in`);
      expect(result.stdout + result.stderr).not.toContain(env.LOADFEED_API_KEY);
    });

    it('third party: loadfeed-conformance passes and writes its reports', async () => {
      await runSection('third-party', { cwd: project, work: project, env, outsideCheckout: true });
      const report = JSON.parse(await readFile(join(project, 'conformance-report', 'report.json'), 'utf8')) as { stats: { unexpected: number; expected: number } };
      expect(report.stats.unexpected).toBe(0);
      expect(report.stats.expected).toBeGreaterThan(20);
    });

    it('operator: migrate (the migrations are in the tarball), a customer, an import, a key, start and a curl', async () => {
      // The import reads the clone's sample generator's loads; the operator has loads of their own.
      const sample = join('examples', 'operator-quickstart', 'sample-loads.mjs');
      await mkdir(join(project, dirname(sample)), { recursive: true });
      await copyFile(join(CHECKOUT, sample), join(project, sample));
      const port = await freePort();
      const result = await runSection('operator', { cwd: project, work: project, env: { PORT: String(port), DATABASE_URL: database.url }, outsideCheckout: true });
      const page = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as LoadPage;
      expect(checkLoadPage(page)).toEqual([]);
      expect(page.data).toHaveLength(2);
    });
  });
});
