// What importing the SDK costs a program that never sends a request: the time `import('@loadfeed/sdk')`
// takes in a fresh Node process, and the size of the SDK bundled and minified with everything it imports.
// The same for a browser's build, whose export conditions pick the web entry. The baseline is
// openapi-fetch alone, the one dependency the client cannot do without, measured the same way in the same run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rolldown } from 'rolldown';

export interface Footprint {
  importMs: number;
  bundleBytes: number;
  gzipBytes: number;
}

const sdkRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The median of `runs` fresh processes' time to import `specifier` (resolved from the SDK's folder). */
function importMillis(specifier: string, runs: number): number {
  const script = `const start = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - start);`;
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: sdkRoot, encoding: 'utf8' });
    times.push(Number(printed.trim()));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * The minified bundle of `specifier` with everything it imports: for Node (Node's own modules left out),
 * or for a browser (the package's web entry, by its export conditions).
 */
export async function bundleBytes(specifier: string, platform: 'node' | 'browser' = 'node'): Promise<{ bytes: number; gzip: number }> {
  const outDir = mkdtempSync(join(tmpdir(), 'loadfeed-footprint-'));
  try {
    const bundle = await rolldown({ input: specifier, cwd: sdkRoot, platform, logLevel: 'silent' });
    const { output } = await bundle.generate({ format: 'esm', minify: true, codeSplitting: false });
    await bundle.close();
    const code = output.map((chunk) => ('code' in chunk ? chunk.code : '')).join('');
    return { bytes: Buffer.byteLength(code), gzip: gzipSync(code).length };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

export async function footprint(specifier: string, runs: number): Promise<Footprint> {
  const size = await bundleBytes(specifier);
  return { importMs: importMillis(specifier, runs), bundleBytes: size.bytes, gzipBytes: size.gzip };
}
