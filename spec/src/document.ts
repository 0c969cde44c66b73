// @loadfeed/spec/document: the OpenAPI 3.1 document as an object, for what serves or checks it (the
// server's /openapi.json and reference page, the mock, the validator). It is a module generated from
// openapi.yaml, so importing it reads no file and parses no YAML, in Node and in a browser alike.
import generatedDocument from './generated/openapi-document.js';

/** The OpenAPI 3.1 document (openapi.yaml), frozen: every importer shares this one object. */
export const openApiDocument: OpenApiDocument = deepFreeze(generatedDocument as OpenApiDocument);

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
