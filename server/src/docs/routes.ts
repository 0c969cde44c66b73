// The interactive API reference at /api/v1/docs: Swagger UI rendering the server's own contract, with
// every asset served from here (swagger-ui-dist) so the page works offline. The Content-Security-Policy
// keeps it that way: the page may load and call nothing but this origin.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Boom from '@hapi/boom';
import type { ServerRoute } from '@hapi/hapi';
import { OPENAPI_PATH } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';

export const DOCS_PATH = '/api/v1/docs';

const swaggerUiFolder = join(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), '..');

interface Asset {
  body: Buffer | string;
  type: string;
  /** The body gzipped, made on the first request that accepts it and kept: swagger-ui-bundle.js (1.5 MB)
   * took ~60 ms of CPU to compress on every request that asked for it, with no key needed to ask. */
  gzipped?: Buffer;
}

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets inline styles on its own elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title} — API reference</title>
  <link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon-32x32.png">
  <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/assets/init.js"></script>
</body>
</html>
`;
}

// The contract names the local reference server; "Try it out" should call whichever server shows the page.
// validatorUrl: null keeps Swagger UI from sending the contract to its public validator.
const initScript = `fetch(${JSON.stringify(OPENAPI_PATH)})
  .then((response) => response.json())
  .then((contract) => {
    window.ui = SwaggerUIBundle({
      spec: { ...contract, servers: [{ url: window.location.origin, description: 'This server' }] },
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      persistAuthorization: false,
      displayRequestDuration: true,
      defaultModelsExpandDepth: 1,
    });
  });
`;

function loadAssets(): Map<string, Asset> {
  const fromPackage = (file: string, type: string): Asset => ({ body: readFileSync(join(swaggerUiFolder, file)), type });
  return new Map([
    ['swagger-ui.css', fromPackage('swagger-ui.css', 'text/css; charset=utf-8')],
    ['swagger-ui-bundle.js', fromPackage('swagger-ui-bundle.js', 'text/javascript; charset=utf-8')],
    ['favicon-32x32.png', fromPackage('favicon-32x32.png', 'image/png')],
    ['init.js', { body: initScript, type: 'text/javascript; charset=utf-8' }],
  ]);
}

/** The assets, read once per process and shared by its servers, each with its gzipped form once made. */
let assetsOfProcess: Map<string, Asset> | undefined;

/** Routes of the reference page and its assets; none needs a key. */
export function apiReferenceRoutes(): ServerRoute[] {
  const html = page(openApiDocument.info.title);
  const assets = (assetsOfProcess ??= loadAssets());
  return [
    {
      method: 'GET',
      path: DOCS_PATH,
      options: {
        auth: false,
        handler: (_request, h) => h.response(html).type('text/html; charset=utf-8').header('Content-Security-Policy', contentSecurityPolicy),
      },
    },
    {
      method: 'GET',
      path: `${DOCS_PATH}/assets/{file}`,
      options: {
        auth: false,
        handler: (request, h) => {
          const asset = assets.get(request.params.file as string);
          if (!asset) throw Boom.notFound();
          const response =
            request.info.acceptEncoding === 'gzip' ? h.response((asset.gzipped ??= gzipSync(asset.body))).compressed('gzip') : h.response(asset.body);
          return response.type(asset.type).header('Cache-Control', 'public, max-age=86400').vary('accept-encoding');
        },
      },
    },
  ];
}
