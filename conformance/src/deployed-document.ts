// Reads the OpenAPI document a deployment serves, to compare it with the contract, the way OpenAPI 3.1
// defines it: a path is relative to a server URL (`servers[].url`, itself absolute or relative to where the
// document was fetched, with its variables' defaults; `/` when the document names no server), so
// `servers: [{url: "/api/v1"}]` with the path `/loads` is the operation at /api/v1/loads; and a `$ref`
// to a place in the same document may stand wherever an object may (a path item, an operation's
// parameters, responses, media types, schemas and their properties).
type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `$ref: '#/…'` pointers inside the document (a few hops at most) to the value they name. */
export function dereference(document: Json, value: Json): Json {
  let current = value;
  for (let hop = 0; hop < 10 && isObject(current) && typeof current.$ref === 'string'; hop += 1) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json>((node, part) => (isObject(node) ? node[part] : undefined), document);
  }
  return current;
}

function at(document: Json, value: Json, ...path: string[]): Json {
  return dereference(
    document,
    path.reduce<Json>((node, part) => {
      const resolved = dereference(document, node);
      return isObject(resolved) ? resolved[part] : undefined;
    }, value),
  );
}

/** The path part of each server URL the document names, resolved against the document's own URL. */
function serverPaths(document: Json, documentUrl: string): string[] {
  const servers = at(document, document, 'servers');
  const declared = Array.isArray(servers) ? servers.map((server) => dereference(document, server)).filter(isObject) : [];
  const urls = declared.length === 0 ? ['/'] : declared.map((server) => withDefaults(server));
  return urls.flatMap((url) => {
    try {
      return [new URL(url, documentUrl).pathname.replace(/\/+$/, '')];
    } catch {
      return [];
    }
  });
}

/** A server URL with each `{variable}` replaced by its default. */
function withDefaults(server: Record<string, Json>): string {
  const variables = isObject(server.variables) ? server.variables : {};
  return String(server.url ?? '/').replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
}

export interface DocumentOperation {
  /** The path as the document writes it, relative to its server URL. */
  path: string;
  operation: Record<string, Json>;
  /** Parameters declared on the path item, which every operation of the path has. */
  pathParameters: Json[];
}

/**
 * The GET operation the document puts at `fullPath` (like `/api/v1/loads`, under the base URL's own path)
 * for some server it names. `documentUrl` is where the document was fetched from.
 */
export function operationAt(document: Json, documentUrl: string, fullPath: string): DocumentOperation | undefined {
  const paths = at(document, document, 'paths');
  if (!isObject(paths)) return undefined;
  const basePath = new URL(documentUrl).pathname.replace(/\/api\/v1\/openapi\.json$/, '');
  const wanted = `${basePath}${fullPath}`;
  for (const server of serverPaths(document, documentUrl)) {
    for (const path of Object.keys(paths)) {
      if (`${server}${path}`.replace(/\/+$/, '') !== wanted) continue;
      const pathItem = dereference(document, paths[path]);
      const operation = at(document, pathItem, 'get');
      if (!isObject(operation) || !isObject(pathItem)) continue;
      return { path, operation, pathParameters: Array.isArray(pathItem.parameters) ? pathItem.parameters : [] };
    }
  }
  return undefined;
}

/** Every query parameter the operation has: its own and its path item's. */
export function parameterNames(document: Json, found: DocumentOperation): string[] {
  const own = at(document, found.operation, 'parameters');
  const parameters = [...found.pathParameters, ...(Array.isArray(own) ? own : [])];
  return parameters
    .map((parameter) => dereference(document, parameter))
    .filter(isObject)
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => String(parameter.name));
}

/** The schema of a row in the 200 response's `data`. */
export function loadSchema(document: Json, operation: Record<string, Json>): { required: string[]; properties: string[] } | undefined {
  const content = at(document, operation, 'responses', '200', 'content');
  const media = isObject(content) ? Object.entries(content).find(([type]) => type.startsWith('application/json'))?.[1] : undefined;
  const row = at(document, media, 'schema', 'properties', 'data', 'items');
  if (!isObject(row)) return undefined;
  const properties = at(document, row, 'properties');
  const required = at(document, row, 'required');
  return {
    required: Array.isArray(required) ? required.map(String) : [],
    properties: isObject(properties) ? Object.keys(properties) : [],
  };
}
