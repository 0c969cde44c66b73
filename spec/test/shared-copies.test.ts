// spec/SPEC.md and spec/DECISIONS.md are the repository's copies of the team's shared documents
// (../shared beside a checkout), kept so that a clone's links resolve. A decision changed in ../shared and
// not here would ship code and docs that disagree, and a copy edited here would say what the team never
// decided. Every clone has the copies and their checksums (shared-copies.sha256), so the copies are always
// held to those; a checkout with ../shared (LOADFEED_SHARED_DIR, if it lies elsewhere) holds the
// checksums, and so the copies, to the sources. A clone without it (CI's, a user's) says so on the test.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const specFolder = fileURLToPath(new URL('..', import.meta.url));
const sharedFolder = process.env.LOADFEED_SHARED_DIR ?? fileURLToPath(new URL('../../../shared/', import.meta.url));
const COPIES = ['SPEC.md', 'DECISIONS.md'] as const;

/** The text from its first non-blank line, without the copy's leading HTML comments. */
function body(path: string): string {
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => !line.startsWith('<!--'));
  return lines.slice(lines.findIndex((line) => line.trim() !== '')).join('\n');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** shared-copies.sha256: file name -> checksum; '#' lines explain. */
function committedChecksums(): Map<string, string> {
  const lines = readFileSync(`${specFolder}shared-copies.sha256`, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return new Map(lines.map((line) => line.split(/\s+/).reverse() as [string, string]));
}

describe('the copies of ../shared', () => {
  it('has a committed checksum for each copy and no other', () => {
    expect([...committedChecksums().keys()].sort()).toEqual([...COPIES].sort());
  });

  it.each(COPIES)('%s says what its committed checksum says', (name) => {
    expect(sha256(body(`${specFolder}${name}`)), `spec/${name} differs from the text shared-copies.sha256 records`).toBe(committedChecksums().get(name));
  });

  it.for(COPIES)('%s and its checksum say what the source in ../shared says, where a checkout has it', async (name, { annotate }) => {
    const source = join(sharedFolder, name);
    if (!existsSync(source)) {
      // Not a skip: the copy was held to its checksum above, and the report says which comparison ran.
      await annotate(`no ${source} beside this checkout: the copy is held to its committed checksum only`);
      return;
    }
    expect(body(`${specFolder}${name}`)).toBe(body(source));
    expect(committedChecksums().get(name), `shared-copies.sha256 is out of date for ${name}`).toBe(sha256(body(source)));
  });
});
