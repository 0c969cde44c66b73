// Reads the OpenAPI document a deployment serves, following local $refs, to compare it with the contract.
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
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json>((node, part) => (isObject(node) ? node[part] : undefined), document);
  }
  return current;
}

function at(document: Json, value: Json, ...path: string[]): Json {
  return path.reduce<Json>((node, part) => {
    const resolved = dereference(document, node);
    return isObject(resolved) ? resolved[part] : undefined;
  }, value);
}

/** The GET operation at the listLoads path, if the document has it. */
export function listLoadsOperation(document: Json, path: string): Record<string, Json> | undefined {
  const operation = dereference(document, at(document, document, 'paths', path, 'get'));
  return isObject(operation) ? operation : undefined;
}

export function parameterNames(document: Json, operation: Record<string, Json>): string[] {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
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
  const row = dereference(document, at(document, media, 'schema', 'properties', 'data', 'items'));
  if (!isObject(row)) return undefined;
  const properties = dereference(document, row.properties);
  return {
    required: Array.isArray(row.required) ? row.required.map(String) : [],
    properties: isObject(properties) ? Object.keys(properties) : [],
  };
}
