// scripts/build.mjs, the build `npm ci` runs (the prepare step): it says which package it builds while
// it builds, passes compiler errors through and exits with tsc's code. Run here on small projects of its
// own, so that the checkout's build is left alone.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKOUT, run, useScratchFolder } from './support.js';

const SCRIPT = join(CHECKOUT, 'scripts', 'build.mjs');
const scratch = useScratchFolder();

/** A composite TypeScript project in `folder` with one source file. */
async function project(folder: string, source: string): Promise<string> {
  const path = join(scratch.path, folder);
  await mkdir(join(path, 'src'), { recursive: true });
  await writeFile(join(path, 'tsconfig.json'), JSON.stringify({ compilerOptions: { composite: true, rootDir: 'src', outDir: 'dist', strict: true, types: [] }, include: ['src'] }));
  await writeFile(join(path, 'src', 'index.ts'), source);
  return path;
}

describe('scripts/build.mjs', () => {
  it('says what it does, names each package as it builds it, and how long it took', async () => {
    const path = await project('inventory', 'export const loads: number = 3;\n');
    const result = await run('node', [SCRIPT, path], { cwd: CHECKOUT });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'loadfeed: building every package (tsc -b): a few minutes on a fresh clone, seconds after that',
      'loadfeed: building inventory',
      expect.stringMatching(/^loadfeed: built in \d+ s$/),
      '',
    ]);
  });

  it("shows the compiler's errors and fails with its exit code", async () => {
    const path = await project('broken', "export const loads: number = 'three';\n");
    const result = await run('node', [SCRIPT, path], { cwd: CHECKOUT });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/src\/index\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'\./);
    expect(result.stdout).toMatch(new RegExp(`loadfeed: the build failed \\(tsc exit ${result.code}\\)\n$`));
  });
});
