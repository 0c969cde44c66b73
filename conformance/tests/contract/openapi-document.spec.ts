import { LIST_LOADS_PARAMETERS, LIST_LOADS_PATH, LOAD_FIELDS, OPENAPI_PATH } from '@loadfeed/spec';
import { loadSchema, operationAt, parameterNames } from '../../src/deployed-document.js';
import { required, verify, type Kit } from '../../src/kit.js';

async function servedDocument(kit: Kit) {
  const exchange = await kit.send({ path: OPENAPI_PATH, authorization: null, credential: 'none', listLoads: false });
  verify(exchange.status === 200 && typeof exchange.body === 'object' && exchange.body !== null, 'the OpenAPI document is served as JSON without a key', {
    expected: `200 with a JSON document at ${OPENAPI_PATH}`,
    actual: `${exchange.status}${exchange.body === null ? ', not JSON' : ''}`,
    exchanges: [exchange],
  });
  return { exchange, document: exchange.body as Record<string, unknown>, documentUrl: `${kit.options.baseUrl}${OPENAPI_PATH}` };
}

required('the OpenAPI document is served at /api/v1/openapi.json without a key and is OpenAPI 3.1', '§1, §9', async ({ kit }) => {
  const { exchange, document } = await servedDocument(kit);
  verify(typeof document.openapi === 'string' && document.openapi.startsWith('3.1'), 'the document declares OpenAPI 3.1', {
    expected: 'openapi: 3.1.x',
    actual: `openapi: ${JSON.stringify(document.openapi)}`,
    exchanges: [exchange],
  });
});

required("the document has listLoads at GET /api/v1/loads with SPEC's query parameters", '§4', async ({ kit }) => {
  const { exchange, document, documentUrl } = await servedDocument(kit);
  const found = operationAt(document, documentUrl, LIST_LOADS_PATH);
  verify(found?.operation.operationId === 'listLoads', 'GET /api/v1/loads is the operation listLoads', {
    expected: 'operationId listLoads (a path relative to one of the servers the document names)',
    actual: found ? `operationId ${JSON.stringify(found.operation.operationId)}` : `no GET operation at /api/v1/loads under the servers ${JSON.stringify(document.servers ?? '/')}`,
    exchanges: [exchange],
  });
  const names = parameterNames(document, found);
  const missing = LIST_LOADS_PARAMETERS.filter((name) => !names.includes(name));
  verify(missing.length === 0, "listLoads declares every query parameter SPEC §4 lists", {
    expected: LIST_LOADS_PARAMETERS.join(', '),
    actual: `missing: ${missing.join(', ')} (declared: ${names.join(', ')})`,
    exchanges: [exchange],
  });
});

required("the document's Load schema has SPEC's 23 fields, all required", '§2', async ({ kit }) => {
  const { exchange, document, documentUrl } = await servedDocument(kit);
  const found = operationAt(document, documentUrl, LIST_LOADS_PATH);
  const schema = found === undefined ? undefined : loadSchema(document, found.operation);
  verify(schema !== undefined, 'the 200 response of listLoads describes its rows', {
    expected: 'responses.200 application/json schema with data.items',
    actual: 'no row schema found',
    exchanges: [exchange],
  });
  const notRequired = LOAD_FIELDS.filter((field) => !schema.required.includes(field));
  const undeclared = LOAD_FIELDS.filter((field) => !schema.properties.includes(field));
  verify(notRequired.length === 0 && undeclared.length === 0, 'every Load field of SPEC §2 is declared and required', {
    expected: `${LOAD_FIELDS.length} required fields: ${LOAD_FIELDS.join(', ')}`,
    actual: `not declared: ${undeclared.join(', ') || 'none'}; not required: ${notRequired.join(', ') || 'none'}`,
    exchanges: [exchange],
  });
});
