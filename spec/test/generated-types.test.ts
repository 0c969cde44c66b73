import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations; its output is what the test checks.
import { generatedPath, readDocument, renderTypes } from '../scripts/generate.mjs';

describe('generated/schema.d.ts', () => {
  it('is what `npm run generate` makes from openapi.yaml today', async () => {
    const committed = await readFile(generatedPath, 'utf8');
    expect(await renderTypes(await readDocument())).toBe(committed);
  });

  it('stops matching as soon as the document changes, so drift fails the test above', async () => {
    const committed = await readFile(generatedPath, 'utf8');
    const document = await readDocument();
    document.components.schemas.Load.properties.carrier = { type: 'string' };
    const drifted = await renderTypes(document);
    expect(drifted).not.toBe(committed);
    expect(drifted).toContain('carrier');
  });

  it('names no type twice or as unknown in a union (a generated client would read `string | string`)', async () => {
    const committed = await readFile(generatedPath, 'utf8');
    const unions = committed.split('\n').map((line) => /:\s*([^;{]+\|[^;{]+);/.exec(line)?.[1]).filter((union) => union !== undefined);
    for (const union of unions) {
      const members = union.split('|').map((member) => member.trim());
      expect(new Set(members).size, union).toBe(members.length);
      expect(members, union).not.toContain('unknown');
    }
  });
});
