import { LIST_LOADS_PATH } from '@loadfeed/spec';
import { checkErrorBody } from '@loadfeed/spec/validate';
import { required, verify, warning } from '../../src/kit.js';
import { list } from '../../src/rows.js';

const source = 'DECISIONS: Other responses; SPEC §7';

warning('an unknown path is a 404 with the error body', source, async ({ kit }) => {
  const exchange = await kit.send({ path: '/api/v1/no-such-resource', authorization: `Bearer ${kit.options.keys.primary}`, credential: 'primary', listLoads: false });
  const violations = checkErrorBody(exchange.status, exchange.body);
  verify(exchange.status === 404 && violations.length === 0, 'an unknown path is not a 404 with the error body', {
    expected: '404 { error }',
    actual: `${exchange.status}; ${list(violations.map((violation) => `${violation.path}: ${violation.message}`))}`,
    exchanges: [exchange],
  });
});

warning('another method on /api/v1/loads is a 405 with Allow: GET and the error body', source, async ({ kit }) => {
  const exchange = await kit.send(
    { path: LIST_LOADS_PATH, authorization: `Bearer ${kit.options.keys.primary}`, credential: 'primary', listLoads: false },
    { method: 'POST' },
  );
  const violations = checkErrorBody(exchange.status, exchange.body);
  verify(exchange.status === 405 && /\bGET\b/.test(exchange.headers.allow ?? '') && violations.length === 0, 'POST is not refused as a 405', {
    expected: '405 with Allow: GET and { error }',
    actual: `${exchange.status}, Allow: ${exchange.headers.allow ?? '(none)'}; ${list(violations.map((violation) => violation.message))}`,
    exchanges: [exchange],
  });
});

required('the service is read-only: a write to /api/v1/loads is refused', '§1', async ({ kit }) => {
  const exchange = await kit.send(
    { path: LIST_LOADS_PATH, authorization: `Bearer ${kit.options.keys.primary}`, credential: 'primary', listLoads: false },
    { method: 'POST' },
  );
  verify(exchange.status >= 400 && exchange.status < 500, 'a POST to the loads is not refused', { expected: 'a 4xx', actual: `${exchange.status}`, exchanges: [exchange] });
});
