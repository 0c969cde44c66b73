// server/sql/README.md, "Drift": what the database runs of each function and trigger is compared with what
// migrate applied. A function dropped by hand or edited by hand is refused by start (createServer) and by
// /readyz, naming its file, and `loadfeed-server migrate` puts it back and says so; a type or an index that
// differs from what the migrations made is reported, never rewritten, and refuses nothing. A database a
// newer release migrated keeps that release's definitions, and an instance of this one serves beside it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Server } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { migrate, migrateSchema } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { applySqlDefinitions, repeatableDefinitions, SQL_DIR } from '../../src/db/sql-definitions.js';
import { createLogger } from '../../src/logging.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { CLI, cliEnv, collect, exited, runCli } from '../cli/run-cli.js';

/** loads_keep_updated_at as a hand edit left it: it lets every write through unstamped. */
const UNSTAMPING_BODY = `CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$`;

describe('definitions that differ from what migrate applied', () => {
  const database = useTestDatabase();
  let admin: pg.Client;
  const pools: pg.Pool[] = [];
  const config = () => loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
  const start = () => {
    const pool = createPool(database.url, { max: 2 });
    pools.push(pool);
    return createServer(config(), { pool, logger: createLogger('silent') });
  };
  /** /readyz of `server` once it answers `status` (its reading of the schema is kept a second). */
  async function readyzOnce(server: Server, status: number): Promise<unknown> {
    for (let attempt = 0; attempt < 60; attempt += 1) {
      const response = await server.inject({ method: 'GET', url: '/readyz' });
      if (response.statusCode === status) return JSON.parse(response.payload);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`/readyz never answered ${status}`);
  }
  /** `loadfeed-server start` on the test database until it listens, then stopped with SIGTERM: what it wrote. */
  async function startCli(): Promise<{ stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [CLI, 'start'], { env: cliEnv({ DATABASE_URL: database.url, PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    const [stdout, stderr] = [collect(child.stdout!), collect(child.stderr!)];
    let seen = '';
    const untilListening = (chunk: Buffer | string) => {
      seen += String(chunk);
      if (!seen.includes('listening on')) return;
      child.stderr!.off('data', untilListening);
      child.kill('SIGTERM');
    };
    child.stderr!.on('data', untilListening);
    const code = await exited(child);
    const result = { stdout: await stdout, stderr: await stderr };
    if (code !== 0 || !seen.includes('listening on')) throw new Error(`start exited with ${code} before listening: ${result.stderr}`);
    return result;
  }
  const functionSource = async (name: string) =>
    (await admin.query<{ source: string }>('SELECT prosrc AS source FROM pg_proc WHERE proname = $1::text', [name])).rows[0]?.source;

  beforeAll(async () => {
    await migrate(database.url);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('DROP FUNCTION feed_page_from_start: /readyz, start and migrate each name it, and `loadfeed-server migrate` puts it back', async () => {
    const running = await start();
    await running.initialize();
    try {
      await readyzOnce(running, 200);
      await admin.query('DROP FUNCTION feed_page_from_start(feed_query, bigint, bigint)');
      const refusal =
        'the database runs definitions of server/sql otherwise than migrate applied them: functions/feed_page_from_start.sql (missing); run `loadfeed-server migrate` to put them back';
      expect(await readyzOnce(running, 503)).toEqual({ error: refusal });
      await expect(start()).rejects.toThrow(refusal);
      // start's own migrate leaves it as it is (start refuses instead) and says what it left.
      expect((await migrateSchema(database.url)).definitions).toEqual({ applied: [], putBack: [], left: [{ name: 'functions/feed_page_from_start.sql', how: 'missing' }] });
      expect(await functionSource('feed_page_from_start')).toBeUndefined();

      const cli = await runCli(['migrate'], { env: { DATABASE_URL: database.url } });
      expect(cli).toMatchObject({ code: 0, stderr: '' });
      expect(cli.stdout).toBe('put back 1 definition(s) the database ran otherwise than applied: functions/feed_page_from_start.sql (missing)\n');
      expect(await functionSource('feed_page_from_start')).toEqual(expect.any(String));
      await readyzOnce(running, 200);
      await (await start()).stop();
      expect((await runCli(['migrate'], { env: { DATABASE_URL: database.url } })).stdout).toBe('the database is up to date\n');
    } finally {
      await running.stop();
    }
  }, 60_000);

  it('a hand-edited loads_keep_updated_at that no longer stamps a change: /readyz and start refuse it, migrate puts it back, and changes are stamped again', async () => {
    const original = await functionSource('loads_keep_updated_at');
    const running = await start();
    await running.initialize();
    try {
      await readyzOnce(running, 200);
      await admin.query(UNSTAMPING_BODY);
      const refusal =
        'the database runs definitions of server/sql otherwise than migrate applied them: functions/loads_keep_updated_at.sql (changed); run `loadfeed-server migrate` to put them back';
      expect(await readyzOnce(running, 503)).toEqual({ error: refusal });
      await expect(start()).rejects.toThrow(refusal);

      const report = await migrateSchema(database.url, { putBack: true });
      expect(report.definitions.putBack).toEqual([{ name: 'functions/loads_keep_updated_at.sql', how: 'changed' }]);
      expect(report.definitions.applied).toEqual([]);
      expect(await functionSource('loads_keep_updated_at')).toBe(original);
      await readyzOnce(running, 200);
    } finally {
      await running.stop();
    }
    // The rule holds again: a write is stamped with its own time.
    await admin.query("INSERT INTO customers (code, name) VALUES ('drift', 'drift') ON CONFLICT DO NOTHING");
    const { rows } = await admin.query<{ stamped: boolean }>(
      `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, updated_at)
       SELECT id, 'D-1', 'Available', now(), '2001-01-01' FROM customers WHERE code = 'drift'
       RETURNING updated_at > '2001-01-02' AS stamped`,
    );
    expect(rows[0]!.stamped).toBe(true);
    await (await start()).stop();
  }, 60_000);

  it('a trigger switched off by hand is refused, and put back with its enabled state', async () => {
    await admin.query('ALTER TABLE loads DISABLE TRIGGER loads_bump_feed_versions_changed');
    await expect(start()).rejects.toThrow('loads_bump_feed_versions_changed');
    const report = await migrateSchema(database.url, { putBack: true });
    expect(report.definitions.putBack).toEqual([{ name: 'triggers/loads.loads_bump_feed_versions_changed.sql', how: 'changed' }]);
    const { rows } = await admin.query<{ enabled: string }>("SELECT tgenabled AS enabled FROM pg_trigger WHERE tgname = 'loads_bump_feed_versions_changed'");
    expect(rows[0]!.enabled).toBe('A');
  }, 60_000);

  it('reports an index and a type that differ from what the migrations made, never rewrites them, refuses nothing for them, and start says so once', async () => {
    await admin.query('DROP INDEX loads_po_number');
    await admin.query('ALTER TYPE feed_query ADD ATTRIBUTE added_by_hand text');
    const warning = 'types or indexes differ from what the migrations made: types/feed_query.sql (changed), indexes/loads_po_number.sql (missing)';
    try {
      const cli = await runCli(['migrate'], { env: { DATABASE_URL: database.url } });
      expect(cli.code).toBe(0);
      expect(cli.stdout).toBe('the database is up to date\n');
      expect(cli.stderr).toContain(`loadfeed-server: warning: ${warning}`);
      expect((await admin.query("SELECT to_regclass('loads_po_number') AS index")).rows[0].index).toBeNull();
      expect((await admin.query("SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = 'feed_query'::regclass AND attname = 'added_by_hand'")).rows[0].n).toBe(1);
      await (await start()).stop();
      // `start` serves, and the warning is said once: in its log, not again on stderr.
      const started = await startCli();
      expect(`${started.stdout}${started.stderr}`.split('types or indexes differ').length - 1).toBe(1);
      const logged = started.stdout.split('\n').find((line) => line.includes('types or indexes differ'));
      expect(logged).toContain('types/feed_query.sql (changed)');
      expect(logged).toContain('indexes/loads_po_number.sql (missing)');
    } finally {
      await admin.query('ALTER TYPE feed_query DROP ATTRIBUTE added_by_hand');
      await admin.query(readFileSync(join(SQL_DIR, 'indexes/loads_po_number.sql'), 'utf8'));
    }
    expect((await migrateSchema(database.url)).definitions.left).toEqual([]);
  }, 60_000);

  it('beside a schema a newer release migrated, keeps its definitions, warns, and serves', async () => {
    // The newer release: a migration this one has not, and its own text of feed_state, applied and recorded.
    const newer = repeatableDefinitions().map((definition) =>
      definition.name === 'functions/feed_state.sql'
        ? { ...definition, text: definition.text.replace('WHERE v.customer_id = p_customer_id', 'WHERE v.customer_id = p_customer_id -- newer'), checksum: 'newer' }
        : definition,
    );
    await admin.query("INSERT INTO pgmigrations (name, run_on) VALUES ('0099_a-newer-release', now())");
    await admin.query(`SELECT set_config('search_path', 'public', false)`);
    await applySqlDefinitions(admin, newer);
    try {
      const report = await migrateSchema(database.url, { putBack: true });
      expect(report).toEqual({ migrations: [], newer: ['0099_a-newer-release'], definitions: { applied: [], putBack: [], left: [] } });
      expect(await functionSource('feed_state')).toContain('-- newer');
      const running = await start();
      await running.initialize();
      await readyzOnce(running, 200);
      await running.stop();
      const cli = await runCli(['migrate'], { env: { DATABASE_URL: database.url } });
      expect(cli).toMatchObject({ code: 0, stdout: 'the database is up to date\n' });
      expect(cli.stderr).toContain('warning: a newer release has migrated this database (migrations 0099_a-newer-release are not in this release)');
      // Its definitions are still compared with what it applied: a hand edit of them is still refused.
      await admin.query('DROP FUNCTION feed_page_from_start(feed_query, bigint, bigint)');
      await expect(start()).rejects.toThrow('functions/feed_page_from_start.sql (missing)');
    } finally {
      await admin.query("DELETE FROM pgmigrations WHERE name = '0099_a-newer-release'");
      await migrateSchema(database.url, { putBack: true });
    }
    expect(await functionSource('feed_state')).not.toContain('-- newer');
  }, 60_000);
});
