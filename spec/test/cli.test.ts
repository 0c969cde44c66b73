import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliError, commandLineOf, EXIT_CODES, formatTable, writeLine } from '../src/cli.js';

const { UsageError, parseStrictly, positiveInteger } = commandLineOf('tool');

/** The error `run` throws, or a failure when it throws none. */
function thrownBy(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('the failures that end a run', () => {
  it('a CliError is one line and exit code 1', () => {
    const error = new CliError('the file is not there');
    expect(error.message).toBe('the file is not there');
    expect(error.exitCode).toBe(EXIT_CODES.failure);
    expect(EXIT_CODES).toEqual({ ok: 0, failure: 1, usage: 2 });
  });

  it("a UsageError points at its command's --help under the program's name, with exit code 2", () => {
    const error = new UsageError('missing <code>', 'keys create');
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe('missing <code> (see `tool keys create --help`)');
    expect(error.exitCode).toBe(EXIT_CODES.usage);
  });

  it("a UsageError with no command points at the program's own --help", () => {
    expect(new UsageError('unknown command "x"', '').message).toBe('unknown command "x" (see `tool --help`)');
  });

  it('each program names itself', () => {
    const other = commandLineOf('other-tool');
    expect(new other.UsageError('wrong', 'list').message).toBe('wrong (see `other-tool list --help`)');
  });
});

describe('parseStrictly', () => {
  const options = { page: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, status: { type: 'string', multiple: true } } as const;

  it('gives the flags and leaves the positionals to the caller', () => {
    const parsed = parseStrictly('list', ['--page', '3', 'extra', '--json', '-h', '--status', 'a', '--status', 'b'], options);
    expect(parsed.values).toEqual({ page: '3', json: true, help: true, status: ['a', 'b'] });
    expect(parsed.positionals).toEqual(['extra']);
  });

  it('an unknown flag is a usage error that names it', () => {
    const error = thrownBy(() => parseStrictly('list', ['--bogus'], options));
    expect(error.message).toBe('unknown option --bogus (see `tool list --help`)');
    expect(error.exitCode).toBe(2);
  });

  it("a flag without its value is a usage error in node's first sentence", () => {
    expect(thrownBy(() => parseStrictly('list', ['--page'], options)).message).toBe('option --page <value> argument missing (see `tool list --help`)');
  });

  it('a value given to a boolean flag is a usage error', () => {
    const error = thrownBy(() => parseStrictly('list', ['--json=yes'], options));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('option --json does not take an argument (see `tool list --help`)');
  });
});

describe('positiveInteger', () => {
  it('an absent flag is undefined', () => {
    expect(positiveInteger(undefined, '--page', 'list')).toBeUndefined();
  });

  it('reads whole numbers from 1 to the largest safe integer, leading zeros included', () => {
    expect(positiveInteger('1', '--page', 'list')).toBe(1);
    expect(positiveInteger('250', '--page', 'list')).toBe(250);
    expect(positiveInteger('007', '--page', 'list')).toBe(7);
    expect(positiveInteger(String(Number.MAX_SAFE_INTEGER), '--page', 'list')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each(['0', '000', '-1', '1.5', '1e3', '', ' 1', '1 ', '+1', '0x10', 'ten', '9007199254740992', '99999999999999999999'])(
    '%j is a usage error that names the flag and quotes the value',
    (value) => {
      const error = thrownBy(() => positiveInteger(value, '--page', 'list'));
      expect(error.message).toBe(`--page must be a whole number of at least 1 (got ${JSON.stringify(value)}) (see \`tool list --help\`)`);
      expect(error.exitCode).toBe(2);
    },
  );

  it('every safe whole number of at least 1 reads back as itself', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => positiveInteger(String(n), '--n', 'c') === n));
  });

  it('anything but digits is refused', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/^[0-9]+$/.test(text)),
        (text) => thrownBy(() => positiveInteger(text, '--n', 'c')).exitCode === 2,
      ),
    );
  });
});

describe('writeLine', () => {
  it('writes the text and one newline', () => {
    const stream = new PassThrough();
    writeLine(stream, 'hello');
    writeLine(stream, '');
    expect(String(stream.read())).toBe('hello\n\n');
  });
});

describe('formatTable', () => {
  it('aligns each column to its widest cell, two spaces apart, and shows an empty cell as "-"', () => {
    const table = formatTable(
      ['CODE', 'NAME', 'ADDED'],
      [
        ['acme', 'Acme Freight Lines', '2026-01-01'],
        ['b', null, '2026-02-01'],
      ],
    );
    expect(table).toBe(['CODE  NAME                ADDED', 'acme  Acme Freight Lines  2026-01-01', 'b     -                   2026-02-01'].join('\n'));
  });

  it('leaves no spaces at the end of a line', () => {
    expect(formatTable(['A', 'B'], [['long value', '']])).toBe('A           B\nlong value');
  });

  it('is the header alone when there are no rows', () => {
    expect(formatTable(['ID', 'CUSTOMER'], [])).toBe('ID  CUSTOMER');
  });

  it('starts every column at the same place on every line', () => {
    const cell = fc.option(fc.stringMatching(/^[a-z0-9]{1,12}$/), { nil: null });
    const table = fc.integer({ min: 1, max: 5 }).chain((columns) => {
      const header = fc.array(fc.stringMatching(/^[A-Z]{1,8}$/), { minLength: columns, maxLength: columns });
      const rows = fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), { maxLength: 8 });
      return fc.tuple(header, rows);
    });
    fc.assert(
      fc.property(table, ([header, rows]) => {
        const lines = formatTable(header, rows).split('\n');
        const starts = (line: string) => [...line.matchAll(/(?:^|(?<=  ))\S/g)].map((match) => match.index);
        expect(lines).toHaveLength(rows.length + 1);
        for (const line of lines) expect(starts(line)).toEqual(starts(lines[0]!));
      }),
    );
  });
});
