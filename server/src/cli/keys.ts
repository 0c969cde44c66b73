// `loadfeed-server keys create|revoke|list`: the API keys customers call the feed with.
import { formatTable, writeLine } from '@loadfeed/spec/cli';
import { createKey, listKeys, revokeKey } from '../admission/keys.js';
import { COMMON_HELP, commandGroup, parseCommandLine, positiveInteger, type Subcommand } from './command.js';
import { databaseUrlOf, withPool } from './database.js';

const create: Subcommand = {
  name: 'create',
  summary: 'Issue a key for a customer (shown once)',
  help: `Usage: loadfeed-server keys create <customerCode> [--rate-limit <n>] [--json] [options]

Issues a new API key for the customer and prints it. The key is shown this once: only its hash is
stored, so a lost key cannot be shown again; issue another and revoke the lost one.
To rotate a key: create a second one, move the client over, then revoke the old one.

Options:
  --rate-limit <n>       Requests per rolling minute for this key (default: the server's
                         RATE_LIMIT_PER_MINUTE, 10 unless set)
  --json                 Print {"id","key","customer","rateLimit"} on one line
${COMMON_HELP}`,
  async run(args, { stdout, env }) {
    const { values, positionals } = parseCommandLine(
      'keys create',
      args,
      { 'rate-limit': { type: 'string' }, json: { type: 'boolean' } },
      { names: ['customerCode'], required: 1 },
    );
    if (values.help) return writeLine(stdout, this.help);
    const rateLimit = positiveInteger(values['rate-limit'], '--rate-limit', 'keys create');
    const issued = await withPool(databaseUrlOf(values['database-url'], env), (pool) =>
      createKey(pool, positionals[0]!, rateLimit === undefined ? {} : { rateLimit }),
    );
    if (values.json) {
      return writeLine(stdout, JSON.stringify({ id: issued.id, key: issued.key, customer: issued.customerCode, rateLimit: issued.rateLimit }));
    }
    writeLine(
      stdout,
      `issued key ${issued.id} for customer ${issued.customerCode} (${issued.rateLimit === null ? 'the server\'s default rate limit' : `${issued.rateLimit} requests a minute`})

  ${issued.key}

Store it now: it is not shown again. Clients send it as \`Authorization: Bearer <key>\`.`,
    );
  },
};

const revoke: Subcommand = {
  name: 'revoke',
  summary: 'Revoke a key at once',
  help: `Usage: loadfeed-server keys revoke <keyId> [options]

Revokes a key: its next request gets a 401, on every instance. The id is the one \`keys list\` and
\`keys create\` show (never the key itself). Revoking a revoked key changes nothing.

Options:
${COMMON_HELP}`,
  async run(args, { stdout, env }) {
    const { values, positionals } = parseCommandLine('keys revoke', args, {}, { names: ['keyId'], required: 1 });
    if (values.help) return writeLine(stdout, this.help);
    await withPool(databaseUrlOf(values['database-url'], env), (pool) => revokeKey(pool, positionals[0]!));
    writeLine(stdout, `revoked key ${positionals[0]}`);
  },
};

const list: Subcommand = {
  name: 'list',
  summary: 'List keys (ids and hints, never keys)',
  help: `Usage: loadfeed-server keys list [<customerCode>] [--json] [options]

Lists every key, or one customer's: id, customer, hint (the prefix and last characters), rate limit,
when it was created, last used (to the minute) and revoked. Keys themselves are never stored or shown.

Options:
  --json                 One JSON array instead of a table
${COMMON_HELP}`,
  async run(args, { stdout, env }) {
    const { values, positionals } = parseCommandLine('keys list', args, { json: { type: 'boolean' } }, { names: ['customerCode'], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const keys = await withPool(databaseUrlOf(values['database-url'], env), (pool) => listKeys(pool, positionals[0]));
    if (values.json) {
      const listed = keys.map(({ customerCode, ...key }) => ({ ...key, customer: customerCode }));
      return writeLine(stdout, JSON.stringify(listed));
    }
    if (keys.length === 0) return writeLine(stdout, 'no keys yet: issue one with `loadfeed-server keys create <customerCode>`');
    writeLine(
      stdout,
      formatTable(
        ['ID', 'CUSTOMER', 'HINT', 'RATE LIMIT', 'CREATED', 'LAST USED', 'REVOKED'],
        keys.map((key) => [
          key.id,
          key.customerCode,
          key.hint,
          key.rateLimit === null ? 'default' : String(key.rateLimit),
          key.createdAt.toISOString(),
          key.lastUsedAt === null ? null : toTheMinute(key.lastUsedAt),
          key.revokedAt?.toISOString() ?? null,
        ]),
      ),
    );
  },
};

/**
 * A key's last use is recorded at most once a minute (LAST_USED_RESOLUTION_MS), so the table shows it to
 * the minute, as the help says: "2026-11-22T04:15Z". The JSON keeps the stored instant.
 */
function toTheMinute(instant: Date): string {
  return `${instant.toISOString().slice(0, 16)}Z`;
}

export const keysCommand = commandGroup('keys', 'API keys are per customer; a key is shown once, at creation, and only its hash is stored.', [create, revoke, list]);
