// `loadfeed-server migrate`: brings the database's schema up to date.
import { writeLine } from '@loadfeed/spec/cli';
import { migrate } from '../db/migrate.js';
import { COMMON_HELP, parseCommandLine, type Command } from './command.js';
import { directDatabaseUrlOf } from './database.js';

export const migrateCommand: Command = {
  name: 'migrate',
  help: `Usage: loadfeed-server migrate [options]

Applies every pending migration to the database, then each definition of server/sql (functions,
triggers) whose text changed since it was last applied. Safe to run while servers are running and from
several places at once: each run waits for the others, and a database that is up to date is left as it is.
\`start\` migrates too, so this is for deployments that migrate as a separate step. Behind a
transaction-mode pooler, set DATABASE_DIRECT_URL to a direct connection: migrate uses it when set.

Options:
${COMMON_HELP}`,
  async run(args, { stdout, stderr, env }) {
    const { values } = parseCommandLine('migrate', args, {}, { names: [], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const applied = await migrate(directDatabaseUrlOf(values['database-url'], env), { onWait: (message) => writeLine(stderr, `loadfeed-server: ${message}`) });
    writeLine(stdout, applied.length === 0 ? 'the database is up to date' : `applied ${applied.length} migration(s): ${applied.join(', ')}`);
  },
};
