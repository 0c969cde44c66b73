// The kit reads a deployment's OpenAPI document as OpenAPI 3.1 defines it: paths relative to a server URL
// (absolute, relative, with variables, with or without a base path) and $refs wherever they stand. Each
// layout below describes the same contract; the kit must find listLoads, its parameters and the Load
// schema in every one, and must not find them where the layout puts them elsewhere.
import { LIST_LOADS_PARAMETERS, LIST_LOADS_PATH, LOAD_FIELDS, OPENAPI_PATH } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import { describe, expect, it } from 'vitest';
import { loadSchema, operationAt, parameterNames } from '../src/deployed-document.js';

type Document = Record<string, any>;

const contract = (): Document => structuredClone(openApiDocument) as Document;

/** The contract with listLoads moved under `servers` at `path`. */
function withServers(servers: unknown[], path: string): Document {
  const document = contract();
  document.servers = servers;
  document.paths = { [path]: document.paths[LIST_LOADS_PATH] };
  return document;
}

/** The contract with a $ref standing in for every object on the way to the Load schema's fields. */
function referencedEverywhere(): Document {
  const document = contract();
  const pathItem = document.paths[LIST_LOADS_PATH];
  const operation = pathItem.get;
  const page = operation.responses['200'];
  const media = page.content['application/json'];
  const pageSchema = media.schema.$ref ? document.components.schemas.LoadPage : media.schema;
  const data = pageSchema.properties.data;
  const load = document.components.schemas.Load;
  document.components.schemas = {
    ...document.components.schemas,
    Load: { ...load, properties: { $ref: '#/components/schemas/LoadFields' }, required: { $ref: '#/components/schemas/LoadRequired' } },
    LoadFields: load.properties,
    LoadRequired: load.required,
    LoadRows: { ...data, items: { $ref: '#/components/schemas/Load' } },
    LoadPage: { ...pageSchema, properties: { ...pageSchema.properties, data: { $ref: '#/components/schemas/LoadRows' } } },
    'Page~Envelope/v1': { $ref: '#/components/schemas/LoadPage' },
  };
  document.components.mediaTypes = { PageJson: { schema: { $ref: '#/components/schemas/Page~0Envelope~1v1' } } };
  document.components.responses = { ...document.components.responses, Page: { ...page, content: { 'application/json': { $ref: '#/components/mediaTypes/PageJson' } } } };
  // Path-level parameters are shared by every operation of the path: two of SPEC's move there.
  const [first, second, ...rest] = operation.parameters;
  document.components.parameterLists = { rest };
  document.components.pathItems = {
    Loads: { parameters: [first, second], get: { ...operation, parameters: rest, responses: { ...operation.responses, '200': { $ref: '#/components/responses/Page' } } } },
  };
  document.paths = { [LIST_LOADS_PATH]: { $ref: '#/components/pathItems/Loads' } };
  return document;
}

const BASE = 'http://127.0.0.1:3000';

const layouts: [string, Document, string][] = [
  ['the contract as written: an absolute server URL, absolute paths', contract(), BASE],
  ['no servers at all (the server URL is "/")', (() => { const d = contract(); delete d.servers; return d; })(), BASE],
  ['a relative server URL with the base path: servers [{url: "/api/v1"}], path /loads', withServers([{ url: '/api/v1' }], '/loads'), BASE],
  ['an absolute server URL of another host with the base path (production named, staging tested)', withServers([{ url: 'https://loads.example.com/api/v1/' }], '/loads'), BASE],
  ['a server URL relative to the document: servers [{url: "."}]', withServers([{ url: '.' }], '/loads'), BASE],
  ['a server URL with variables and their defaults', withServers([{ url: '{scheme}://{host}/{version}', variables: { scheme: { default: 'https' }, host: { default: 'x.example' }, version: { default: 'api/v1', enum: ['api/v1'] } } }], '/loads'), BASE],
  ['a deployment under a path prefix, the prefix in the server URL', withServers([{ url: '/customer-data/api/v1' }], '/loads'), `${BASE}/customer-data`],
  ['a deployment under a path prefix, absolute paths after it', withServers([{ url: 'https://x.example/customer-data' }], LIST_LOADS_PATH), `${BASE}/customer-data`],
  ['several servers, the matching one second', withServers([{ url: 'https://x.example/v2' }, { url: '/api/v1' }], '/loads'), BASE],
  ['$refs wherever they may stand', referencedEverywhere(), BASE],
];

describe.each(layouts)('%s', (_layout, document, baseUrl) => {
  const found = operationAt(document, `${baseUrl}${OPENAPI_PATH}`, LIST_LOADS_PATH);

  it('finds listLoads at GET /api/v1/loads with every query parameter of SPEC §4', () => {
    expect(found?.operation.operationId).toBe('listLoads');
    expect([...parameterNames(document, found!)].sort()).toEqual([...LIST_LOADS_PARAMETERS].sort());
  });

  it("finds the Load schema with SPEC's 23 fields, all required", () => {
    const schema = loadSchema(document, found!.operation);
    expect([...schema!.properties].sort()).toEqual([...LOAD_FIELDS].sort());
    expect([...schema!.required].sort()).toEqual([...LOAD_FIELDS].sort());
  });
});

describe('where the document puts listLoads elsewhere, the kit does not find it at /api/v1/loads', () => {
  it.each([
    ['the base path twice: servers [{url: "/api/v1"}] with the absolute path /api/v1/loads', withServers([{ url: '/api/v1' }], LIST_LOADS_PATH), BASE],
    ['the path without its version: /loads under the server "/"', withServers([{ url: '/' }], '/loads'), BASE],
    ['a path prefix the base URL lacks', withServers([{ url: '/customer-data/api/v1' }], '/loads'), BASE],
  ])('%s', (_layout, document, baseUrl) => {
    expect(operationAt(document, `${baseUrl}${OPENAPI_PATH}`, LIST_LOADS_PATH)).toBeUndefined();
  });
});
