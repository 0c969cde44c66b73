import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  DATE_TIME_LOAD_FIELDS,
  DEFAULT_MAX_PAGE_SIZE,
  DEFAULT_PAGE,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RATE_LIMIT,
  LIST_LOADS_PARAMETERS,
  LOAD_FIELDS,
  LOAD_STATUSES,
  NULLABLE_LOAD_FIELDS,
  PAGE_SIZE_CEILING,
  RATE_WINDOW_MS,
  integerHeaderValue,
} from '../src/index.js';
import { openApiDocument } from '../src/document.js';

/** The names in the first column of SPEC.md §4's table of query parameters (the repository's copy of SPEC). */
function specQueryParameters(): string[] {
  const spec = readFileSync(new URL('../SPEC.md', import.meta.url), 'utf8');
  const table = spec.slice(spec.indexOf('## 4. Endpoints')).split('Query parameters:')[1]!.split('\n\n')[1]!;
  return table
    .split('\n')
    .slice(2)
    .map((row) => row.split('|')[1]!.trim());
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 under an independent validator', async () => {
    const result = await new Validator().validate(structuredClone(openApiDocument) as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(openApiDocument.openapi).toBe('3.1.0');
    expect(openApiDocument.info.version).toBe('1.0.0');
  });

  it('declares listLoads at GET /api/v1/loads with HTTP bearer security (SPEC §4, §5)', () => {
    const operation = openApiDocument.paths['/api/v1/loads']!.get!;
    expect(operation.operationId).toBe('listLoads');
    expect(openApiDocument.security).toEqual([{ bearerAuth: [] }]);
    expect(openApiDocument.components.securitySchemes).toMatchObject({ bearerAuth: { type: 'http', scheme: 'bearer' } });
    expect(Object.keys(operation.responses as object)).toEqual(['200', '400', '401', '429', '500']);
  });

  it("lists SPEC §4's query parameters, as its table names them, with status repeatable", () => {
    expect([...LIST_LOADS_PARAMETERS].sort()).toEqual(specQueryParameters().sort());
    expect(openApiDocument.components.parameters.status).toMatchObject({ style: 'form', explode: true, schema: { type: 'array' } });
    // A larger pageSize is valid and clamps (DECISIONS.md), so the parameter has no maximum.
    expect(openApiDocument.components.parameters.pageSize!.schema).toMatchObject({ type: 'integer', minimum: 1, default: 100 });
    expect(openApiDocument.components.parameters.pageSize!.schema).not.toHaveProperty('maximum');
  });
});

describe('names and numbers derived from the document', () => {
  it('are the 23 Load fields of SPEC §2, 20 of them nullable, 7 of them date-times', () => {
    expect(LOAD_FIELDS).toHaveLength(23);
    expect(NULLABLE_LOAD_FIELDS).toHaveLength(20);
    expect(LOAD_FIELDS.filter((f) => !NULLABLE_LOAD_FIELDS.includes(f))).toEqual(['loadNumber', 'status', 'updatedAt']);
    expect(DATE_TIME_LOAD_FIELDS).toEqual([
      'scheduledPickupDate',
      'scheduledDeliveryDate',
      'tenderedDate',
      'actualPickupDate',
      'actualDeliveryDate',
      'requestedDeliveryDate',
      'updatedAt',
    ]);
  });

  it('are the 13 statuses of SPEC §3 and the page limits of SPEC §8', () => {
    expect(LOAD_STATUSES).toEqual([
      'PrePlanning', 'Available', 'Covered', 'Dispatched', 'Loading', 'InTransit', 'Unloading',
      'Delivered', 'Claims', 'PenApp', 'Completed', 'OnHold', 'Cancelled',
    ]);
    expect([DEFAULT_PAGE, DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING]).toEqual([1, 100, 1000]);
    expect([RATE_WINDOW_MS, DEFAULT_RATE_LIMIT, DEFAULT_MAX_PAGE_SIZE]).toEqual([60_000, 10, 100]);
  });
});

describe('integerHeaderValue: the one reader of the integer headers', () => {
  it('reads digits, with the spaces HTTP allows around a value', () => {
    expect(integerHeaderValue('10')).toBe(10);
    expect(integerHeaderValue(' 0 ')).toBe(0);
  });

  it('reads nothing from a missing header or anything but digits', () => {
    for (const value of [null, undefined, '', ' ', '-1', '1.5', '1e3', '0x10', '10s', 'ten', '+1']) {
      expect(integerHeaderValue(value), String(value)).toBeUndefined();
    }
  });

  it('gives back every non-negative integer it is handed as text', () => {
    fc.assert(fc.property(fc.nat(), (value) => integerHeaderValue(String(value)) === value));
  });
});
