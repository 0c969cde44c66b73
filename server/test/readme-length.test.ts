// server/README.md is the guide an operator reads in ten minutes (issue 44): at most 350 lines. What does
// not fit goes to DESIGN.md (how and why) or BENCHMARKS.md (figures), which the guide links to.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 350;
const text = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('server/README.md', () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    const lines = text.replace(/\n$/, '').split('\n').length;
    expect(lines, `server/README.md has ${lines} lines: move design to DESIGN.md, figures to BENCHMARKS.md`).toBeLessThanOrEqual(MAX_LINES);
  });
});
