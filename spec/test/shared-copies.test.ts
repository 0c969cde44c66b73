// spec/SPEC.md and spec/DECISIONS.md are the repository's copies of the team's shared documents
// (../shared beside a checkout), kept so that a clone's links resolve. Where the source is there, the
// copies must say the same: a decision changed in ../shared and not here would ship code and docs that
// disagree. A clone without ../shared (a user's) has only the copies, and nothing to compare.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const specFolder = fileURLToPath(new URL('..', import.meta.url));
const sharedFolder = fileURLToPath(new URL('../../../shared/', import.meta.url));

/** The text from its first non-blank line, without the copy's leading HTML comments. */
function body(path: string): string {
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => !line.startsWith('<!--'));
  return lines.slice(lines.findIndex((line) => line.trim() !== '')).join('\n');
}

describe.runIf(existsSync(sharedFolder))('the copies of ../shared', () => {
  it.each(['SPEC.md', 'DECISIONS.md'])('%s says what its source in ../shared says', (name) => {
    expect(body(`${specFolder}${name}`)).toBe(body(`${sharedFolder}${name}`));
  });
});
