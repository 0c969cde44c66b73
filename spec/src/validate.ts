// The one response validator: JSON Schema 2020-12 from the document's own components, plus the
// serialization rules a schema alone cannot state (exact date-time shape, createdAt, details on 400 only,
// the rate headers). The server's tests, the SDK's mock and tests and the conformance kit load it as
// @loadfeed/spec/validate; nothing that only calls the API pays for ajv.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  DATE_TIME_LOAD_FIELDS,
  integerHeaderValue,
  RATE_LIMIT_HEADERS,
  RESPONSE_DATE_TIME,
  RETRY_AFTER_HEADER,
  TOLERATED_EXTRA_LOAD_FIELD,
} from './contract.js';
import { openApiDocument } from './document.js';

export interface Violation {
  /** Where the problem is: a JSON pointer into the body, or `header <name>`, or `status`. */
  path: string;
  message: string;
}

export interface ResponseToCheck {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  body: unknown;
}

export class ContractViolationError extends Error {
  constructor(readonly violations: Violation[]) {
    super(`response breaks the contract:\n${violations.map((v) => `  ${v.path}: ${v.message}`).join('\n')}`);
    this.name = 'ContractViolationError';
  }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const documentId = 'https://loadfeed.invalid/openapi.json';
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
// The components live under a key that is not a JSON Schema keyword; declaring it lets strict mode
// accept a schema whose $refs point into `#/components/schemas/...` exactly as the document writes them.
ajv.addKeyword('components');
ajv.addSchema({ $id: documentId, components: { schemas: openApiDocument.components.schemas } });

const compiled = new Map<string, ValidateFunction>();
function validatorFor(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.getSchema(`${documentId}#/components/schemas/${name}`)!;
    compiled.set(name, validate);
  }
  return validate;
}

function describe(error: ErrorObject, base: string): Violation {
  const path = base + error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return { path, message: `has a property the contract forbids: ${String(params.additionalProperty)}` };
  }
  if (error.keyword === 'enum') {
    return { path, message: `must be one of ${(params.allowedValues as string[]).join(', ')}` };
  }
  return { path, message: error.message ?? error.keyword };
}

function schemaViolations(name: string, value: unknown, base = ''): Violation[] {
  const validate = validatorFor(name);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => describe(error, base));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The row as the schema sees it: SPEC §2 lets a server add `createdAt`, which the schema omits. */
function withoutToleratedExtra(row: unknown): unknown {
  if (!isRecord(row) || !(TOLERATED_EXTRA_LOAD_FIELD in row)) return row;
  const { [TOLERATED_EXTRA_LOAD_FIELD]: _tolerated, ...rest } = row;
  return rest;
}

function serializationViolations(row: unknown, base: string): Violation[] {
  if (!isRecord(row)) return [];
  const violations: Violation[] = [];
  const fields = TOLERATED_EXTRA_LOAD_FIELD in row ? [...DATE_TIME_LOAD_FIELDS, TOLERATED_EXTRA_LOAD_FIELD] : DATE_TIME_LOAD_FIELDS;
  for (const field of fields) {
    const value = row[field];
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string' || !RESPONSE_DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) {
      violations.push({
        path: `${base}/${field}`,
        message: `must be a UTC date-time with exactly three fractional digits and Z (got ${JSON.stringify(value)})`,
      });
    }
  }
  return violations;
}

/** Violations of one Load row: the schema (with `createdAt` tolerated) and the serialization rules. */
export function checkLoad(row: unknown, base = ''): Violation[] {
  return [...schemaViolations('Load', withoutToleratedExtra(row), base), ...serializationViolations(row, base)];
}

/** Violations of a page envelope and of every row in it. */
export function checkLoadPage(body: unknown): Violation[] {
  if (!isRecord(body) || !Array.isArray(body.data)) return schemaViolations('LoadPage', body);
  const rows = body.data as unknown[];
  return [
    ...schemaViolations('LoadPage', { ...body, data: rows.map(withoutToleratedExtra) }),
    ...rows.flatMap((row, index) => serializationViolations(row, `/data/${index}`)),
  ];
}

/** Violations of an error body for a status: `details` is required on 400 and absent on every other. */
export function checkErrorBody(status: number, body: unknown): Violation[] {
  if (status === 400) return schemaViolations('ValidationErrorBody', body);
  const violations = schemaViolations('ErrorBody', body);
  if (isRecord(body) && 'details' in body) {
    violations.push({ path: '/details', message: `must appear on 400 responses only, not on a ${status}` });
  }
  return violations;
}

function header(headers: ResponseToCheck['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(', ') : value;
}

function integerHeaderViolations(headers: ResponseToCheck['headers'], names: readonly string[]): Violation[] {
  return names.flatMap((name) => {
    const value = header(headers, name);
    if (value === undefined) return [{ path: `header ${name}`, message: 'is missing' }];
    return integerHeaderValue(value) !== undefined ? [] : [{ path: `header ${name}`, message: `must be an integer (got ${JSON.stringify(value)})` }];
  });
}

const headersByStatus: Record<number, readonly string[]> = {
  200: RATE_LIMIT_HEADERS,
  400: RATE_LIMIT_HEADERS,
  401: [],
  429: [...RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER],
  500: [],
};

/** Violations of one listLoads response: status, content type, the headers SPEC §4 requires, and the body. */
export function checkResponse(response: ResponseToCheck): Violation[] {
  const required = headersByStatus[response.status];
  if (!required) {
    return [{ path: 'status', message: `${response.status} is not a status SPEC §4 lists for listLoads (200, 400, 401, 429, 500)` }];
  }
  const contentType = header(response.headers, 'content-type');
  const violations: Violation[] = [];
  if (!contentType || !/^application\/json\b/i.test(contentType)) {
    violations.push({ path: 'header content-type', message: `must be application/json (got ${JSON.stringify(contentType)})` });
  }
  violations.push(...integerHeaderViolations(response.headers, required));
  violations.push(...(response.status === 200 ? checkLoadPage(response.body) : checkErrorBody(response.status, response.body)));
  return violations;
}

/** Throws a ContractViolationError listing every violation, if there is any. */
export function assertConformingResponse(response: ResponseToCheck): void {
  const violations = checkResponse(response);
  if (violations.length > 0) throw new ContractViolationError(violations);
}
