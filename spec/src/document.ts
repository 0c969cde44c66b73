import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The OpenAPI 3.1 document, parsed once from the openapi.yaml shipped beside this package's code. */
export const openApiDocument: OpenApiDocument = deepFreeze(
  parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as OpenApiDocument,
);

/** The parts of the document this package reads; the rest is carried as it is. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, { operationId?: string; parameters?: unknown[]; [key: string]: unknown }>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, { name: string; in: string; schema: JsonSchema; [key: string]: unknown }>;
    headers: Record<string, { schema: JsonSchema; [key: string]: unknown }>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: string[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
