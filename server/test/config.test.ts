import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}, '/srv')).toEqual({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      rateLimitPerMinute: 10,
      maxPageSize: 100,
      logLevel: 'info',
      dataDir: resolve('/srv', '.loadfeed'),
    });
  });

  it('reads every variable', () => {
    expect(
      loadConfig(
        { PORT: '8080', HOST: '0.0.0.0', DATABASE_URL: 'postgres://u@db:5432/feed', RATE_LIMIT_PER_MINUTE: '60', MAX_PAGE_SIZE: '1000', LOG_LEVEL: 'warn', LOADFEED_DATA_DIR: '/var/lib/loadfeed' },
        '/srv',
      ),
    ).toEqual({ port: 8080, host: '0.0.0.0', databaseUrl: 'postgres://u@db:5432/feed', rateLimitPerMinute: 60, maxPageSize: 1000, logLevel: 'warn', dataDir: '/var/lib/loadfeed' });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }, '/srv')).toMatchObject({ port: 3000, databaseUrl: undefined });
  });

  it('names every bad value in one error, each with what it must be', () => {
    const problems = problemsOf({ PORT: 'eighty', RATE_LIMIT_PER_MINUTE: '0', MAX_PAGE_SIZE: '1001', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(problems).toHaveLength(5);
    expect(problems).toEqual(
      expect.arrayContaining([
        'PORT must be a whole number from 0 to 65535 (got eighty)',
        'RATE_LIMIT_PER_MINUTE must be a whole number of at least 1 (got 0)',
        'MAX_PAGE_SIZE must be a whole number from 1 to 1000 (got 1001)',
        expect.stringMatching(/^LOG_LEVEL must be one of .* \(got loud\)$/),
        'DATABASE_URL must be a postgres:// or postgresql:// connection string',
      ]),
    );
  });

  it('refuses a page size of 0 and a fractional rate limit', () => {
    expect(problemsOf({ MAX_PAGE_SIZE: '0' })).toHaveLength(1);
    expect(problemsOf({ RATE_LIMIT_PER_MINUTE: '2.5' })).toHaveLength(1);
  });
});
