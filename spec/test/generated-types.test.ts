import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations; its output is what the test checks.
import { documentModulePath, factsModulePath, generatedPath, loadCheckModulePath, readDocument, renderDocumentModule, renderFactsModule, renderLoadCheckModule, renderTypes } from '../scripts/generate.mjs';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_RATE_LIMIT, LOAD_STATUSES, RATE_WINDOW_MS, RATE_WINDOW_SECONDS, RESPONSE_HEADERS } from '../src/index.js';

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

describe('the generated modules (src/generated)', () => {
  it('are what `npm run generate` makes from openapi.yaml today', async () => {
    const document = await readDocument();
    expect(renderDocumentModule(document)).toBe(await readFile(documentModulePath, 'utf8'));
    expect(renderFactsModule(document)).toBe(await readFile(factsModulePath, 'utf8'));
    expect(renderLoadCheckModule(document)).toBe(await readFile(loadCheckModulePath, 'utf8'));
  });

  it("the generated Load check follows a pattern or a status the document changes, and refuses a property it cannot check", async () => {
    const document = await readDocument();
    document.components.schemas.Load.properties.miles.pattern = '^[0-9]+$';
    document.components.schemas.LoadStatus.enum.push('Archived');
    const changed = renderLoadCheckModule(document);
    expect(changed).toContain('new RegExp("^[0-9]+$")');
    expect(changed).toContain('"Archived"');
    document.components.schemas.Load.properties.miles = { type: ['number', 'null'] };
    expect(() => renderLoadCheckModule(document)).toThrow(/Load\.miles: the generated check knows string fields only/);
  });

  it('stop matching as soon as the document changes a status or a header name', async () => {
    const committed = await readFile(factsModulePath, 'utf8');
    const document = await readDocument();
    document.components.schemas.LoadStatus.enum.push('Archived');
    expect(renderFactsModule(document)).not.toBe(committed);
    const renamed = await readDocument();
    renamed.components.headers['X-Rate-Limit-Left'] = renamed.components.headers['X-RateLimit-Remaining'];
    delete renamed.components.headers['X-RateLimit-Remaining'];
    expect(renderFactsModule(renamed)).toContain('"rateLimitLeft":"X-Rate-Limit-Left"');
    expect(renderFactsModule(renamed)).not.toContain('rateLimitRemaining');
  });

  it('hold what the document says, read straight from the YAML', async () => {
    const document = await readDocument();
    expect(LOAD_STATUSES).toEqual(document.components.schemas.LoadStatus.enum);
    expect(Object.values(RESPONSE_HEADERS)).toEqual(Object.keys(document.components.headers));
  });

  it('take the rate window, the default limit and the reference server\'s maximum from the document\'s x- extensions', async () => {
    const document = await readDocument();
    expect(RATE_WINDOW_MS).toBe(document.info['x-rate-limit']['window-seconds'] * 1000);
    expect(RATE_WINDOW_SECONDS).toBe(document.info['x-rate-limit']['window-seconds']);
    expect(DEFAULT_RATE_LIMIT).toBe(document.info['x-rate-limit']['default-limit']);
    expect(DEFAULT_MAX_PAGE_SIZE).toBe(document.components.parameters.pageSize.schema['x-reference-server-maximum']);
    document.info['x-rate-limit']['window-seconds'] = 30;
    expect(renderFactsModule(document)).toContain('export const RATE_WINDOW_MS = 30000;');
    delete document.info['x-rate-limit'];
    expect(() => renderFactsModule(document)).toThrow(/states no value for RATE_WINDOW_MS, DEFAULT_RATE_LIMIT/);
  });
});
