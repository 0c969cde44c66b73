// What `import '@loadfeed/sdk'` brings into a program: the client and the sync helper with openapi-fetch
// and the contract's facts, never the validator (ajv), the query reader (joi), a YAML parser or msw. The
// bundler resolves the import graph exactly as an application's build would.
import { rolldown } from 'rolldown';
import { describe, expect, it } from 'vitest';

async function bundledPackages(entry: string): Promise<Set<string>> {
  const bundle = await rolldown({ input: entry, cwd: new URL('..', import.meta.url).pathname, platform: 'node', logLevel: 'silent' });
  try {
    const { output } = await bundle.generate({ format: 'esm' });
    const ids = output.flatMap((chunk) => ('moduleIds' in chunk ? chunk.moduleIds : []));
    return new Set(ids.map((id) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(id)?.[1] ?? /\/(spec|sdk)\/dist\//.exec(id)?.[0] ?? id));
  } finally {
    await bundle.close();
  }
}

describe('the SDK\'s import graph', () => {
  it('the main entry loads openapi-fetch and the contract\'s facts, and none of ajv, joi, yaml or msw', async () => {
    const packages = await bundledPackages('@loadfeed/sdk');
    expect(packages).toContain('openapi-fetch');
    for (const heavy of ['ajv', 'ajv-formats', 'joi', 'yaml', 'msw']) expect(packages).not.toContain(heavy);
  });

  it('the mock loads msw and the validator it checks its rows with (so the test above can fail)', async () => {
    const packages = await bundledPackages('@loadfeed/sdk/mock');
    expect(packages).toContain('msw');
    expect(packages).toContain('ajv');
  });
});
