// Bundlers and edge runtimes get an entry with no Node module (package.json's export conditions): an
// application that imports the client and syncLoads bundles for a browser and for a neutral platform
// (workers, edge runtimes) without Node's modules, and for Node with the file cursor store.
import { build, type Platform } from 'esbuild';
import { describe, expect, it } from 'vitest';

const sdkRoot = new URL('..', import.meta.url).pathname;

async function bundle(contents: string, platform: Platform): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: sdkRoot, loader: 'ts' },
    bundle: true,
    platform,
    format: 'esm',
    write: false,
    logLevel: 'silent',
    // Node's modules are never part of a bundle: left as imports, they show what the bundle needs.
    external: platform === 'node' ? ['node:*'] : [],
  });
  return result.outputFiles[0]!.text;
}

const APPLICATION = "import { createClient, syncLoads, memoryCursorStore } from '@loadfeed/sdk';\nexport { createClient, syncLoads, memoryCursorStore };";

describe('the SDK in a bundle (esbuild)', () => {
  for (const platform of ['browser', 'neutral'] as const) {
    it(`bundles createClient and syncLoads for --platform=${platform}, with no Node module in it`, async () => {
      const code = await bundle(APPLICATION, platform);
      expect(code).toContain('syncLoads');
      expect(code).not.toMatch(/["']node:/);
    });

    it(`tells a ${platform} build that the file cursor store is Node's (no such export there)`, async () => {
      await expect(bundle("import { fileCursorStore } from '@loadfeed/sdk';\nexport const store = fileCursorStore;", platform)).rejects.toThrow(/No matching export .* "fileCursorStore"/);
    });
  }

  it('bundles the file cursor store for --platform=node, importing Node\'s file system (so the checks above can fail)', async () => {
    const code = await bundle("export { fileCursorStore, syncLoads } from '@loadfeed/sdk';", 'node');
    expect(code).toMatch(/from "node:fs\/promises"/);
  });
});
