// `loadfeed-server feed-writers`: which transactions hold customers' feeds back, and for how long.
import { formatTable, writeLine } from '@loadfeed/spec/cli';
import { listFeedWriters } from '../feed-writers.js';
import { COMMON_HELP, parseCommandLine, type Command } from './command.js';
import { databaseUrlOf, withPool } from './database.js';

export const feedWritersCommand: Command = {
  name: 'feed-writers',
  help: `Usage: loadfeed-server feed-writers [<customerCode>] [--json] [options]

Lists the transactions still in flight that hold a customer's feed back: a client sees none of a
customer's changes stamped after such a writer's first stamp until it commits or rolls back. A
transaction that writes more than 16 customers holds back every customer. For each: the backend pid,
the customers, since when and how long (AGE), and what pg_stat_activity shows of it (its role,
application and state, where this role may read them: grant it pg_read_all_stats to see every
session). With a customer code, only the writers holding that customer back.

A writer that has run too long can be ended from psql: SELECT pg_terminate_backend(<pid>);

Options:
  --json                 One JSON array instead of a table
${COMMON_HELP}`,
  async run(args, { stdout, env }) {
    const { values, positionals } = parseCommandLine('feed-writers', args, { json: { type: 'boolean' } }, { names: ['customerCode'], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const writers = await withPool(databaseUrlOf(values['database-url'], env), (pool) => listFeedWriters(pool, positionals[0]));
    if (values.json) return writeLine(stdout, JSON.stringify(writers));
    if (writers.length === 0) return writeLine(stdout, 'no transaction holds a feed back');
    writeLine(
      stdout,
      formatTable(
        ['PID', 'CUSTOMERS', 'HOLDING SINCE', 'AGE', 'ROLE', 'APPLICATION', 'STATE'],
        writers.map((writer) => [
          writer.pid === null ? 'prepared' : String(writer.pid),
          writer.customers === 'every customer' ? 'every customer' : writer.customers.join(','),
          writer.holdingSince.toISOString(),
          `${(writer.ageMs / 1000).toFixed(1)}s`,
          writer.role,
          writer.application,
          writer.state,
        ]),
      ),
    );
  },
};
