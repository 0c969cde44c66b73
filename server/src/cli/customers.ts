// `loadfeed-server customers add|list`: the customers keys and loads belong to.
import { formatTable, writeLine } from '@loadfeed/spec/cli';
import { addCustomer, listCustomers } from '../customers.js';
import { COMMON_HELP, commandGroup, parseCommandLine, type Subcommand } from './command.js';
import { databaseUrlOf, withPool } from './database.js';

const add: Subcommand = {
  name: 'add',
  summary: 'Add a customer',
  help: `Usage: loadfeed-server customers add <code> [--name <name>] [options]

Adds a customer. The code (1-64 letters, digits, "_", "." or "-") is how every other command names it;
the name defaults to the code.

Options:
  --name <name>          The customer's display name
${COMMON_HELP}`,
  async run(args, { stdout, env }) {
    const { values, positionals } = parseCommandLine('customers add', args, { name: { type: 'string' } }, { names: ['code'], required: 1 });
    if (values.help) return writeLine(stdout, this.help);
    const customer = await withPool(databaseUrlOf(values['database-url'], env), (pool) => addCustomer(pool, positionals[0]!, values.name));
    writeLine(stdout, `added customer ${customer.code} (${customer.name})`);
  },
};

const list: Subcommand = {
  name: 'list',
  summary: 'List the customers',
  help: `Usage: loadfeed-server customers list [--json] [options]

Lists every customer: code, name and when it was added.

Options:
  --json                 One JSON array instead of a table
${COMMON_HELP}`,
  async run(args, { stdout, env }) {
    const { values } = parseCommandLine('customers list', args, { json: { type: 'boolean' } }, { names: [], required: 0 });
    if (values.help) return writeLine(stdout, this.help);
    const customers = await withPool(databaseUrlOf(values['database-url'], env), listCustomers);
    if (values.json) return writeLine(stdout, JSON.stringify(customers));
    if (customers.length === 0) return writeLine(stdout, 'no customers yet: add one with `loadfeed-server customers add <code>`');
    writeLine(stdout, formatTable(['CODE', 'NAME', 'ADDED'], customers.map((customer) => [customer.code, customer.name, customer.createdAt.toISOString()])));
  },
};

export const customersCommand = commandGroup('customers', 'Customers own API keys and loads; each key sees its customer\'s loads only.', [add, list]);
