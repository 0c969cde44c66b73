// Turns whatever ended a command into the one line the operator sees, and its exit code.
import { CliError, EXIT_CODES } from '@loadfeed/spec/cli';
import { OperatorError } from '../customers.js';
import { EmbeddedPostgresError } from '../db/hosted-postgres.js';

/** PostgreSQL error codes (SQLSTATE) an operator can act on, and what to tell them. */
const DATABASE_ERRORS: Readonly<Record<string, string>> = {
  '28P01': 'the database refused the password',
  '28000': 'the database refused the connection',
  '3D000': 'the database does not exist',
  '42P01': 'the database has no loadfeed tables: run `loadfeed-server migrate` first',
  '57P01': 'the database shut down during the command',
  '57P03': 'the database is starting up or shutting down',
  '53300': 'the database has too many connections',
};

/** Network failures on the way to PostgreSQL. */
const CONNECTION_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
};

export interface Failure {
  message: string;
  exitCode: number;
}

export function describeFailure(error: unknown): Failure {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof OperatorError || error instanceof EmbeddedPostgresError) return { message: error.message, exitCode: EXIT_CODES.failure };
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  const message = firstLine(error instanceof Error ? error.message : String(error));
  if (code && code in CONNECTION_ERRORS) return { message: `cannot reach the database (${CONNECTION_ERRORS[code]}): ${message}`, exitCode: EXIT_CODES.failure };
  if (code && code in DATABASE_ERRORS) return { message: `${DATABASE_ERRORS[code]} (${message})`, exitCode: EXIT_CODES.failure };
  if (/timeout exceeded when trying to connect/i.test(message)) return { message: 'cannot reach the database (connection timed out)', exitCode: EXIT_CODES.failure };
  if (code && /^[0-9A-Z]{5}$/.test(code)) return { message: `database error ${code}: ${message}`, exitCode: EXIT_CODES.failure };
  return { message: `unexpected error: ${message}`, exitCode: EXIT_CODES.failure };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
