// The contract, served as JSON at /api/v1/openapi.json without a key (SPEC §1). The document in spec/
// names the reference server as `npm start` runs it locally; the one served names the server the request
// reached (its scheme and Host), so that a client generated from it calls this server, on this port.
import type { Request, ServerRoute } from '@hapi/hapi';
import { OPENAPI_PATH } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';

/** A Host header worth echoing: a DNS name, an IPv4 address or a bracketed IPv6 one, and a port. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** This server as the request addressed it; without a usable Host, the relative URL OpenAPI resolves against the document's. */
function thisServer(request: Request): { url: string; description: string } {
  const header = (name: string): string | undefined => {
    const value: unknown = request.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const host = header('host');
  if (!host || !HOST.test(host)) return { url: '/', description: 'The server that serves this document' };
  // Behind a proxy that ends TLS, the proxy says which scheme the client used.
  const forwarded = header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : request.server.info.protocol;
  return { url: `${scheme}://${host.toLowerCase()}`, description: 'The server that serves this document' };
}

export function openApiRoute(): ServerRoute {
  return {
    method: 'GET',
    path: OPENAPI_PATH,
    options: {
      auth: false,
      handler: (request, h) =>
        h
          .response(JSON.stringify({ ...openApiDocument, servers: [thisServer(request)] }))
          .type('application/json')
          .header('Vary', 'Host, X-Forwarded-Proto'),
    },
  };
}
