// `loadfeed-server migrate`: brings the database's schema up to date.
import { writeLine } from '@loadfeed/spec/cli';
import { describeDrifts } from '../db/definition-catalog.js';
import { describeFixedDrift, describeRepeatableDrift } from '../db/definitions-check.js';
import { migrateSchema, type MigrationReport } from '../db/migrate.js';
import { COMMON_HELP, parseCommandLine, type Command } from './command.js';
import { directDatabaseUrlOf } from './database.js';

export const migrateCommand: Command = {
  name: 'migrate',
  help: `Usage: loadfeed-server migrate [options]

Applies every pending migration to the database, then each definition of server/sql (functions,
triggers) whose text changed since it was last applied, and puts back each one the database no longer
runs as applied (dropped or changed by hand), saying which. Types and indexes that differ from what the
migrations made are reported, not rewritten. A database that a newer release migrated keeps that
release's definitions (said, not refused). Safe to run while servers are running and from
several places at once: each run waits for the others, and a database that is up to date is left as it is.
\`start\` migrates too, so this is for deployments that migrate as a separate step. Behind a
transaction-mode pooler, set DATABASE_DIRECT_URL to a direct connection: migrate uses it when set.

Options:
${COMMON_HELP}`,
  async run(args, { stdout, stderr, env }) {
    const { values } = parseCommandLine('migrate', args, {}, { names: [], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const report = await migrateSchema(directDatabaseUrlOf(values['database-url'], env), {
      putBack: true,
      onWait: (message) => writeLine(stderr, `loadfeed-server: ${message}`),
    });
    const { migrations, definitions } = report;
    const lines = [
      ...(migrations.length > 0 ? [`applied ${migrations.length} migration(s): ${migrations.join(', ')}`] : []),
      ...(definitions.putBack.length > 0 ? [`put back ${definitions.putBack.length} definition(s) the database ran otherwise than applied: ${describeDrifts(definitions.putBack)}`] : []),
    ];
    writeLine(stdout, lines.length === 0 ? 'the database is up to date' : lines.join('\n'));
    // Left only beside a newer release's schema, whose own migrate puts its definitions back.
    const notPutBack = describeRepeatableDrift(definitions.left);
    for (const warning of [...migrationWarnings(report), ...(notPutBack ? [notPutBack] : [])]) writeLine(stderr, `loadfeed-server: warning: ${warning}`);
  },
};

/** What a migration leaves for the operator to know: a newer release's schema, and what it did not rewrite. */
export function migrationWarnings(report: MigrationReport): string[] {
  return [...newerReleaseWarning(report), ...[describeFixedDrift(report.definitions.left)].filter((line): line is string => line !== undefined)];
}

/** The warning that a newer release migrated the database, if one did. */
export function newerReleaseWarning({ newer }: Pick<MigrationReport, 'newer'>): string[] {
  return newer.length > 0
    ? [`a newer release has migrated this database (migrations ${newer.join(', ')} are not in this release): its definitions are kept, and this release serves beside it`]
    : [];
}
