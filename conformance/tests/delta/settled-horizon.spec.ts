import { RESPONSE_DATE_TIME, SETTLED_THROUGH_HEADER } from '@loadfeed/spec';
import { isPage } from '../../src/dataset.js';
import { need, verify, warning } from '../../src/kit.js';
import { list } from '../../src/rows.js';

/**
 * The optional header by which a deployment says how far its feed is settled: every change stamped at or
 * before it is served (DECISIONS: Loads in the reference server). SPEC.md does not name it, so a broken
 * one is a warning.
 */

warning(
  'X-Feed-Settled-Through, when sent, is a date-time with milliseconds and Z, and no row of its response is newer',
  'DECISIONS: Loads in the reference server (the settled feed)',
  async ({ kit }) => {
    await kit.sample();
    const stating = kit.exchanges.filter((exchange) => exchange.listLoads && exchange.status === 200 && exchange.headers[SETTLED_THROUGH_HEADER] !== undefined);
    need(stating.length > 0, 'the deployment sends no X-Feed-Settled-Through header (it is optional)', 'optional');
    const malformed = stating.filter((exchange) => {
      const value = exchange.headers[SETTLED_THROUGH_HEADER]!;
      return !RESPONSE_DATE_TIME.test(value) || Number.isNaN(Date.parse(value));
    });
    verify(malformed.length === 0, 'X-Feed-Settled-Through is not a date-time in the response form', {
      expected: 'YYYY-MM-DDTHH:MM:SS.sssZ',
      actual: list(malformed.map((exchange) => `#${exchange.id}: ${exchange.headers[SETTLED_THROUGH_HEADER]}`)),
      exchanges: malformed,
    });
    const beyond = stating.flatMap((exchange) => {
      const horizon = Date.parse(exchange.headers[SETTLED_THROUGH_HEADER]!);
      const rows = isPage(exchange.body) ? exchange.body.data : [];
      return rows.filter((row) => Date.parse(row.updatedAt) > horizon).map((row) => ({ exchange, row }));
    });
    verify(beyond.length === 0, 'a response serves a row stamped after the instant it says the feed is settled through', {
      expected: `every row's updatedAt at or before the response's ${SETTLED_THROUGH_HEADER}`,
      actual: list(beyond.map(({ exchange, row }) => `#${exchange.id} ${row.loadNumber}: updatedAt ${row.updatedAt} > ${exchange.headers[SETTLED_THROUGH_HEADER]}`)),
      exchanges: [...new Set(beyond.map(({ exchange }) => exchange))],
    });
  },
);
