// Every command a README gives runs as pasted, or says why it cannot: each fenced shell block of every
// README in the repository (and each CI recipe of examples/conformance-in-ci) is marked on the line before
// it (./readme.ts), and each runnable section is run by a test named below. A new block without a marker,
// or a section no test runs, fails here with where it is.
import { describe, expect, it } from 'vitest';
import { allBlocks, readmeFiles } from './readme.js';

/** Each runnable section and the test that runs it. */
const RUN_BY: Record<string, string> = {
  'operator-embedded': 'readme-quickstarts.test.ts (npm start in the background, its printed curl pasted)',
  'server-embedded': 'readme-quickstarts.test.ts (while npm start runs)',
  operator: 'readme-quickstarts.test.ts and packed-install.test.ts',
  customer: 'readme-quickstarts.test.ts and packed-install.test.ts',
  'third-party': 'readme-quickstarts.test.ts and packed-install.test.ts',
  pack: 'packed-install.test.ts',
  install: 'packed-install.test.ts',
  'pack-conformance': 'packed-install.test.ts',
  'install-conformance': 'packed-install.test.ts',
  'pack-sdk': 'packed-install.test.ts',
  'install-sdk': 'packed-install.test.ts',
  'pack-server': 'packed-install.test.ts',
  'install-server': 'packed-install.test.ts',
  'ci-recipe': 'conformance-in-ci.test.ts (each step of the GitHub Actions and GitLab CI recipes)',
};

const blocks = allBlocks();
const where = (block: { readme: string; line: number }) => `${block.readme}:${block.line}`;

describe('the commands of every README', () => {
  it('reads every README of the repository, the package READMEs and the examples included', () => {
    expect(readmeFiles()).toEqual(expect.arrayContaining(['README.md', 'server/README.md', 'sdk/README.md', 'conformance/README.md', 'spec/README.md', 'examples/README.md', 'examples/conformance-in-ci/README.md']));
    expect(blocks.length).toBeGreaterThan(25);
  });

  it('marks every shell block and CI recipe: runnable in a section, or not runnable with the reason', () => {
    expect(blocks.filter((block) => !block.marked).map((block) => `${where(block)} (\`\`\`${block.language}) has no <!-- readme-test: … --> marker`)).toEqual([]);
    const unexplained = blocks.filter((block) => block.notRunnable !== undefined && block.notRunnable.length < 30);
    expect(unexplained.map((block) => `${where(block)}: "${block.notRunnable}" is no reason`)).toEqual([]);
  });

  it('runs every runnable section in a test, and names no section that no README has', () => {
    const sections = new Set(blocks.flatMap((block) => (block.section === undefined ? [] : [block.section])));
    expect([...sections].filter((section) => !(section in RUN_BY)).map((section) => `section "${section}" is run by no test`)).toEqual([]);
    expect(Object.keys(RUN_BY).filter((section) => !sections.has(section))).toEqual([]);
  });
});
