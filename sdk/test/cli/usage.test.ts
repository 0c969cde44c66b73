// Command lines that cannot work end with exit code 2 and one line that says why, before any request;
// a key is never echoed back.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DESTINATION_KINDS } from '../../src/destinations.js';
import { runCli, useScratchFolder } from './run-cli.js';

const scratch = useScratchFolder();
const SDK_PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, unknown>;
};
const KEY = 'lf_live_aKeyThatMustNeverBePrinted000000000000000';
const ENV = { LOADFEED_BASE_URL: 'http://127.0.0.1:9', LOADFEED_API_KEY: KEY };
/** Every destination's flag and value, in the registry's order, as a sentence lists them ("a, b or c"). */
const flags = DESTINATION_KINDS.map((kind) => `--${kind.flag} ${kind.value}`);
const EVERY_COPY_FLAG = flags.length < 2 ? flags.join('') : `${flags.slice(0, -1).join(', ')} or ${flags.at(-1)}`;

describe('bad command lines', () => {
  it.each([
    ['an unknown command', ['fetch'], /^loadfeed: unknown command "fetch" \(see `loadfeed --help`\)\n$/],
    ['an unknown flag', ['sync', '--out', 'x.ndjson', '--fast'], /^loadfeed: unknown option --fast \(see `loadfeed sync --help`\)\n$/],
    ['a flag without its value', ['list', '--page'], /^loadfeed: option --page <value> argument missing/],
    ['no destination', ['sync'], `give exactly one copy: ${EVERY_COPY_FLAG}`],
    ['two destinations', ['sync', '--out', 'x.ndjson', '--postgres', 'postgres://127.0.0.1:9/x'], /give exactly one copy/],
    ['--state with --sqlite', ['sync', '--sqlite', 'x.db', '--state', 's.json'], /--state is for --out/],
    ['--table without --postgres', ['sync', '--sqlite', 'x.db', '--table', 'loads'], /--table is for --postgres/],
    ['verify without a copy', ['verify'], /give exactly one copy/],
    ['a page size of 0', ['sync', '--out', 'x.ndjson', '--page-size', '0'], /--page-size must be a whole number of at least 1 \(got "0"\)/],
    ['a page that is not a number', ['list', '--page', 'two'], /--page must be a whole number of at least 1 \(got "two"\)/],
    ['a status outside the closed list', ['list', '--status', 'Lost'], /--status "Lost" is not a load status \(one of PrePlanning, /],
    ['a key given as an argument', ['list', KEY], /unexpected argument \(a value that looks like an API key: set LOADFEED_API_KEY instead\)/],
    ['a base URL that is not one', ['list', '--base-url', 'loads.example.com'], /the base URL is not a URL: "loads.example.com"/],
  ])('%s: exit code 2 and one line', async (_case, args, reason) => {
    const result = await runCli(args, ENV, { cwd: scratch.path });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).not.toContain(KEY);
  });

  it('without LOADFEED_API_KEY the key is missing: exit code 2, and the line names the variable', async () => {
    const result = await runCli(['list'], { LOADFEED_BASE_URL: 'http://127.0.0.1:9' });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('loadfeed: the API key is missing: set LOADFEED_API_KEY (or pass --api-key) (see `loadfeed list --help`)\n');
  });

  it('no command prints the help to stderr with exit code 2; --help prints it to stdout with exit code 0', async () => {
    const bare = await runCli([], {});
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^Usage: loadfeed <command>/);

    for (const args of [['--help'], ['sync', '--help'], ['list', '-h']]) {
      const help = await runCli(args, {});
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: loadfeed /);
    }
  });

  it('a key on the command line works but draws a warning that names the variable instead, never the key', async () => {
    const result = await runCli(['list', '--api-key', KEY, '--base-url', 'http://127.0.0.1:9'], {});

    expect(result.stderr).toContain('loadfeed: note: a key given as --api-key shows in the process list; LOADFEED_API_KEY keeps it out');
    expect(result.stderr).toMatch(/^loadfeed: cannot reach the API: /m);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain(KEY);
  });
});

describe.each(
  DESTINATION_KINDS.flatMap((kind) => (kind.optionalPackage ? [{ flag: `--${kind.flag}`, value: kind.value, optional: kind.optionalPackage }] : [])),
)('$flag without its optional package', ({ flag, value, optional }) => {
  const packageName = optional.name;
  const install = `${optional.name}@${optional.version}\`${optional.otherwise ?? ''}`;
  it('names the version the SDK is tested with (its devDependency) and accepts as a peer', () => {
    expect(optional.version).toBe(SDK_PACKAGE.devDependencies[packageName]);
    expect(SDK_PACKAGE.peerDependenciesMeta[packageName]).toEqual({ optional: true });
  });

  it('fails with one line that says how to install it, and exit code 1', async () => {
    // A resolve hook that makes the optional package missing, as it is for a user who skipped it.
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier === ${JSON.stringify(packageName)}) throw Object.assign(new Error("Cannot find package"), { code: 'ERR_MODULE_NOT_FOUND' });
      return next(specifier, context);
    }`;
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;

    const result = await runCli(['sync', flag, value], ENV, { cwd: scratch.path, nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(register)}`] });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`loadfeed: ${flag} needs the optional package ${packageName}: run \`npm install ${install}\n`);
  });
});
