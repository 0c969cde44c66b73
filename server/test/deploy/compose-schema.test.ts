// server/deploy/compose/compose.yaml against the Compose Specification's own JSON schema (vendored in
// compose-spec/, see SOURCE.md there), as docker compose checks a file before it runs it: a misspelt key,
// a value of the wrong type or a section the specification does not have fails here, not on an operator's
// first `docker compose up`.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { readComposeFile } from '../support/compose-file.js';

const schema = JSON.parse(await readFile(new URL('compose-spec/compose-spec.json', import.meta.url), 'utf8')) as object;
// The schema names its meta-schema as https://json-schema.org/draft-07/schema, which is Ajv's own
// draft-07 meta-schema under another address; Ajv checks the schema against it before compiling.
const draft07 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json') as object;
const ajv = new Ajv({ allErrors: true, strict: false }).addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
// strict is off because the schema is the specification's, not ours: strict mode's complaints about its
// idioms would say nothing about the file checked against it.
const validate = ajv.compile(schema);

/** The schema's complaints about a compose file, one line each ('' when it has none). */
function complaints(file: unknown): string {
  if (validate(file)) return '';
  return (validate.errors ?? []).map((error: ErrorObject) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`).join('\n');
}

// As compose reads the file: anchors merged, and every `${NAME:-default}` at its default.
const file = await readComposeFile();

describe('compose.yaml against the Compose Specification schema', () => {
  it('is valid', () => {
    expect(complaints(file)).toBe('');
  });

  it('the check can fail: a misspelt key, an unknown condition and an unknown section are each reported', () => {
    const misspelt = structuredClone(file) as unknown as { services: Record<string, Record<string, unknown>> };
    misspelt.services['migrate']!['depend_on'] = misspelt.services['migrate']!['depends_on'];
    delete misspelt.services['migrate']!['depends_on'];
    expect(complaints(misspelt)).toMatch(/\/services\/migrate .*additional properties.*"additionalProperty":"depend_on"/);

    const condition = structuredClone(file);
    condition.services['server-1']!.depends_on!.migrate = { condition: 'service_completed' as 'service_completed_successfully' };
    expect(complaints(condition)).toMatch(/\/services\/server-1\/depends_on\/migrate\/condition must be equal to one of the allowed values/);

    expect(complaints({ ...file, secret: file.secrets })).toMatch(/"additionalProperty":"secret"/);
  });
});
