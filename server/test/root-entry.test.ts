// The root entry (src/index.ts) is deprecated name by name, and neither the operator CLI nor the testing
// entry needs it: read as source with TypeScript's own parser, so no build or type check is involved.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const ROOT_ENTRY = resolve(SRC, 'index.ts');

/** Every name the root entry exports, with the text of its `@deprecated` tag (undefined without one). */
function rootEntryNames(): { name: string; deprecated: string | undefined }[] {
  const source = ts.createSourceFile(ROOT_ENTRY, readFileSync(ROOT_ENTRY, 'utf8'), ts.ScriptTarget.Latest, true);
  const names: { name: string; deprecated: string | undefined }[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const specifier of statement.exportClause.elements) {
        const tag = ts.getJSDocTags(specifier).find((jsDocTag) => jsDocTag.tagName.text === 'deprecated');
        names.push({ name: specifier.name.text, deprecated: tag === undefined ? undefined : (ts.getTextOfJSDocComment(tag.comment) ?? '') });
      }
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) {
      names.push({ name: statement.getText().slice(0, 40), deprecated: undefined });
    }
  }
  return names;
}

/** The source files `entry` loads through relative imports, itself included. */
function reachedFrom(entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.')) pending.push(resolve(dirname(file), fileName.replace(/\.js$/, '.ts')));
    }
  }
  return reached;
}

describe("@loadfeed/server's root entry", () => {
  it('deprecates every name it exports, each naming what to use instead', () => {
    const names = rootEntryNames();
    expect(names.length).toBeGreaterThan(30);
    for (const { name, deprecated } of names) {
      expect(deprecated, `${name} has no @deprecated`).toBeDefined();
      expect(deprecated, `${name}'s @deprecated names nothing to use`).toMatch(/`[^`]+`/);
    }
  });

  it('is loaded by neither the operator CLI nor the testing entry', () => {
    for (const entry of ['cli/main.ts', 'testing/index.ts', 'testing/vitest.ts']) {
      const reached = reachedFrom(resolve(SRC, entry));
      expect(reached.size, entry).toBeGreaterThan(1);
      expect(reached.has(ROOT_ENTRY), `${entry} loads src/index.ts`).toBe(false);
    }
  });
});
