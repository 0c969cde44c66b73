// TypeScript consumers of the packed SDK, as sdk/README.md ("Runtimes, bundlers and TypeScript") says:
// an ES module typechecks under moduleResolution node16, nodenext and bundler, with no @types/node (the
// DOM's lib is enough); the file cursor store is typed where the `node` condition is (node16, nodenext,
// or bundler with customConditions ["node"]); a CommonJS file may import the SDK under nodenext (Node
// 20.19+ loads ES modules with require) and gets TS1479 under node16, which models an older Node.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedProject, run, type PackedProject } from './support.js';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const FILES = {
  'consumer.ts': `import { createClient, memoryCursorStore, syncLoads, type LoadRow } from '@loadfeed/sdk';
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'lf_live_x' });
const rows: LoadRow[] = [];
await syncLoads({ client, cursorStore: memoryCursorStore(), upsert: (page) => void rows.push(...page) });
`,
  'node-consumer.ts': `import { fileCursorStore } from '@loadfeed/sdk';
export const store = fileCursorStore('cursor.json');
`,
  'commonjs-consumer.cts': `import { createClient } from '@loadfeed/sdk';
export const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'lf_live_x' });
`,
};

describe('TypeScript consumers of the packed SDK', () => {
  let project: PackedProject;
  beforeAll(async () => {
    project = await packedProject();
    for (const [name, text] of Object.entries(FILES)) await writeFile(join(project.path, name), text);
  }, 120_000);
  afterAll(async () => {
    await project?.remove();
  });

  /** The error codes tsc reports per file, under `options` (strict, ES2022 with the DOM's lib; the project has no @types). */
  async function errorsOf(files: string[], options: string[]): Promise<string[]> {
    const result = await run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', ...options, ...files], { cwd: project.path });
    return [...result.stdout.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm)].map(([, file, code]) => `${file} ${code}`);
  }

  // One tsc run per setting, every file in it: each run parses the DOM's lib anew, which is most of its 2-3 s.
  it('under nodenext, an ES module with the client, syncLoads and the file cursor store typechecks, and so does a CommonJS file', async () => {
    expect(await errorsOf(Object.keys(FILES), ['--module', 'nodenext', '--moduleResolution', 'nodenext'])).toEqual([]);
  });

  it('under node16, the ES module typechecks; the CommonJS file gets TS1479 (node16 models a Node that cannot require an ES module)', async () => {
    expect(await errorsOf(Object.keys(FILES), ['--module', 'node16', '--moduleResolution', 'node16'])).toEqual(['commonjs-consumer.cts TS1479']);
  });

  it('under bundler, the client and syncLoads typecheck; the file cursor store only with customConditions ["node"]', async () => {
    const bundler = ['--module', 'preserve', '--moduleResolution', 'bundler'];
    expect(await errorsOf(['consumer.ts', 'node-consumer.ts'], bundler)).toEqual(['node-consumer.ts TS2724']);
    expect(await errorsOf(['consumer.ts', 'node-consumer.ts'], [...bundler, '--customConditions', 'node'])).toEqual([]);
  });
});
