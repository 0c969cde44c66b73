// `loadfeed list`: one page of your loads, as a table to read or as the API's JSON to pipe on.
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, LOAD_STATUSES, type LoadStatus } from '@loadfeed/spec';
import { formatTable, writeLine } from '@loadfeed/spec/cli';
import { createClient, type ListLoadsParams, type LoadRow, type Page } from '../client.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, UsageError, connectionOf, parseFlags, positiveInteger, type Command } from './command.js';
import { formatWait } from './progress.js';
import { TIMEOUT_HELP, TIMEOUT_OPTION, timeoutMsOf } from './timeout-flag.js';

const NAME = 'list';

/** The table's columns: a heading and how a row fills it (null shows as "-"). */
const COLUMNS: readonly { heading: string; cell(load: LoadRow): string | null }[] = [
  { heading: 'LOAD', cell: (load) => load.loadNumber },
  { heading: 'STATUS', cell: (load) => load.status },
  { heading: 'ORIGIN', cell: (load) => place(load.originCity, load.originState) },
  { heading: 'DESTINATION', cell: (load) => place(load.destinationCity, load.destinationState) },
  { heading: 'PICKUP', cell: (load) => appointment(load.scheduledPickupDate, load.scheduledPickupTime) },
  { heading: 'DELIVERY', cell: (load) => appointment(load.scheduledDeliveryDate, load.scheduledDeliveryTime) },
  { heading: 'MILES', cell: (load) => load.miles },
  { heading: 'UPDATED', cell: (load) => load.updatedAt },
];

function place(city: string | null, state: string | null): string | null {
  if (city === null && state === null) return null;
  return [city, state].filter((part) => part !== null).join(', ');
}

function appointment(date: string | null, time: string | null): string | null {
  if (date === null) return time;
  return time === null ? date.slice(0, 10) : `${date.slice(0, 10)} ${time}`;
}

function describePage(page: Page): string {
  const pages = Math.max(1, Math.ceil(page.totalCount / page.pageSize));
  const first = (page.page - 1) * page.pageSize + 1;
  const shown = page.data.length === 0 ? 'no loads on this page' : `loads ${first}-${first + page.data.length - 1}`;
  const next = page.hasMore ? `; next: --page ${page.page + 1}` : '';
  return `page ${page.page} of ${pages}: ${shown} of ${page.totalCount}${next}`;
}

export const listCommand: Command = {
  name: NAME,
  summary: 'Show one page of your loads as a table or JSON',
  help: `Usage: loadfeed list [options]

Shows one page of your loads, oldest change first, as a table (or the API's JSON with --json).

Options:
  --status <status>    Only loads with this status; repeat for several (any of them matches).
                       One of: ${LOAD_STATUSES.join(', ')}
  --updated-since <when>
                       Only loads changed at or after this date (YYYY-MM-DD) or date-time
                       (RFC 3339, e.g. 2026-01-31T08:00:00Z)
  --page <n>           Which page (default ${DEFAULT_PAGE})
  --page-size <n>      Rows per page (default: the server's default, ${DEFAULT_PAGE_SIZE})
  --json               Print the page as JSON: {data, page, pageSize, totalCount, hasMore}
${TIMEOUT_HELP}
${CONNECTION_HELP}`,

  async run(args, context) {
    const values = parseFlags(NAME, args, {
      ...CONNECTION_OPTIONS,
      status: { type: 'string', multiple: true },
      'updated-since': { type: 'string' },
      page: { type: 'string' },
      'page-size': { type: 'string' },
      json: { type: 'boolean' },
      ...TIMEOUT_OPTION,
    });
    if (values.help) return writeLine(context.stdout, this.help);
    const params: ListLoadsParams = {};
    for (const status of values.status ?? []) {
      if (!LOAD_STATUSES.includes(status as LoadStatus)) {
        throw new UsageError(`--status ${JSON.stringify(status)} is not a load status (one of ${LOAD_STATUSES.join(', ')})`, NAME);
      }
    }
    if (values.status !== undefined) params.status = values.status as LoadStatus[];
    if (values['updated-since'] !== undefined) params.updatedSince = values['updated-since'];
    const page = positiveInteger(values.page, '--page', NAME);
    const pageSize = positiveInteger(values['page-size'], '--page-size', NAME);
    if (page !== undefined) params.page = page;
    if (pageSize !== undefined) params.pageSize = pageSize;

    const timeoutMs = timeoutMsOf(values.timeout, NAME);
    const client = createClient({
      ...connectionOf(values, context, NAME),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      signal: context.signal,
      userAgent: 'loadfeed-cli',
      // A retry can wait a minute for the rate limit: say so rather than look stuck.
      logger: { onRetry: ({ reason, delayMs }) => writeLine(context.stderr, `loadfeed: ${reason}; retrying in ${formatWait(delayMs)}`) },
    });
    const result = await client.listLoads(params);
    if (values.json) return writeLine(context.stdout, JSON.stringify(result, null, 2));
    if (result.data.length > 0) {
      const rows = result.data.map((load) => COLUMNS.map((column) => column.cell(load)));
      writeLine(context.stdout, formatTable(COLUMNS.map((column) => column.heading), rows));
    }
    writeLine(context.stdout, describePage(result));
  },
};
