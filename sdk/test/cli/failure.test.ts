// What ended a command becomes one line and an exit code: the rate limit that stopped a run is 3, every
// real failure of the SDK's error tree is 1 (kinds added later included), and no line shows a key or a
// database password.
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/cli/failure.js';
import { AbortError, ConnectionError, ContractError, LoadfeedError, errorFromResponse } from '../../src/index.js';

/** An error as node:sqlite throws it: Node gives the result code in errcode, Deno only the message. */
const nodeSqliteError = (message: string, errcode?: number) => Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR' }, errcode === undefined ? {} : { errcode, errstr: message });

const json = new Headers({ 'content-type': 'application/json', 'retry-after': '30' });

describe('describeFailure', () => {
  it('gives exit 3 to a rate limit still in force after every retry: nothing failed, the run stops with its checkpoint', () => {
    expect(describeFailure(errorFromResponse(429, json, { error: 'Rate limit exceeded' }, 0))).toMatchObject({ exitCode: 3 });
  });

  it.each([
    ['a 500 after every retry', errorFromResponse(500, json, { error: 'boom' }, 0)],
    ['a 401', errorFromResponse(401, json, { error: 'no' }, 0)],
    ['a connection failure', new ConnectionError('the request to db:443 failed')],
    ['a response off the contract', new ContractError([{ path: '/data/0/updatedAt', message: 'bad' }])],
    ['an error kind the tree gains later', new (class ResponseTooLargeError extends LoadfeedError {})('the response exceeded 64 MiB')],
  ])('gives exit 1, a real failure, to %s', (_case, error) => {
    const failure = describeFailure(error);
    expect(failure.exitCode).toBe(1);
    expect(failure.message).not.toMatch(/^unexpected error/);
  });

  it.each([
    ['SQLite', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), 'SQLite: database is locked (SQLITE_BUSY)'],
    ['PostgreSQL', Object.assign(new Error('permission denied for table loads'), { code: '42501', severity: 'ERROR' }), 'PostgreSQL: permission denied for table loads (SQLSTATE 42501)'],
    [
      'DuckDB',
      new Error('IO Error: Could not set lock on file "/srv/loads.duckdb": Conflicting lock is held in /usr/bin/node (PID 4242). See also https://duckdb.org/docs'),
      'another process (4242) has the DuckDB file open (a loadfeed sync, or a DuckDB session): try again when it ends',
    ],
    ['DuckDB', new Error('Constraint Error: NOT NULL constraint failed: loads.status'), 'DuckDB: Constraint Error: NOT NULL constraint failed: loads.status'],
    // node:sqlite (Node 22.13+, Deno) says ERR_SQLITE_ERROR for all: the code comes from Node's errcode, or Deno's message.
    ['node:sqlite (Node)', nodeSqliteError('database is locked', 5), 'SQLite: database is locked (SQLITE_BUSY)'],
    ['node:sqlite (Node)', nodeSqliteError('NOT NULL constraint failed: loads.loadNumber', 1299), 'SQLite: NOT NULL constraint failed: loads.loadNumber (SQLITE_CONSTRAINT)'],
    ['node:sqlite (Deno)', nodeSqliteError('file is not a database'), 'SQLite: file is not a database (SQLITE_NOTADB)'],
    ['node:sqlite (Deno)', nodeSqliteError('NOT NULL constraint failed: loads.loadNumber'), 'SQLite: NOT NULL constraint failed: loads.loadNumber'],
  ])("reads a %s error as that destination says it, with exit 1", (_destination, error, message) => {
    expect(describeFailure(error)).toEqual({ message, exitCode: 1 });
  });

  it.each([
    ['net', 'Requires net access to "127.0.0.1:9", run again with the --allow-net flag', 'Deno denied net access to 127.0.0.1:9, which the command needs: run it again with --allow-net=127.0.0.1:9'],
    ['write', 'Requires write access to "copies/loads.db", run again with the --allow-write flag', 'Deno denied write access to copies/loads.db, which the command needs: run it again with --allow-write=copies'],
    ['env', 'Requires env access to "LOADFEED_BASE_URL", run again with the --allow-env flag', 'Deno denied env access to LOADFEED_BASE_URL, which the command needs: run it again with --allow-env'],
  ])("names Deno's denial of %s access and the flag that grants it, not an unexpected error", (_kind, denied, message) => {
    expect(describeFailure(Object.assign(new Error(denied), { name: 'NotCapable' }))).toEqual({ message, exitCode: 1 });
    expect(describeFailure(Object.assign(new Error(denied), { name: 'PermissionDenied' }))).toEqual({ message, exitCode: 1 });
  });

  it('gives 130 to an abort', () => {
    expect(describeFailure(AbortError.from(AbortSignal.abort('SIGINT'))).exitCode).toBe(130);
  });

  it('never shows a database password or a key', () => {
    const failure = describeFailure(new Error('could not connect to postgres://sync:s3cret@db/warehouse with lf_live_abcdef123'));
    expect(failure.message).not.toContain('s3cret');
    expect(failure.message).not.toContain('abcdef123');
    expect(failure.message).toContain('postgres://sync:…@db/warehouse');
  });
});
