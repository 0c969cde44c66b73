// The contract, served as JSON at /api/v1/openapi.json without a key (SPEC §1).
import type { ServerRoute } from '@hapi/hapi';
import { OPENAPI_PATH, openApiDocument } from '@loadfeed/spec';

export function openApiRoute(): ServerRoute {
  const json = JSON.stringify(openApiDocument);
  return {
    method: 'GET',
    path: OPENAPI_PATH,
    options: { auth: false, handler: (_request, h) => h.response(json).type('application/json') },
  };
}
