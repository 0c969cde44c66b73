import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { checkSettledFeed, enableFeedTrigger, FEED_TRIGGERS, feedTriggerProblem } from '../../src/db/settled-feed-check.js';
import { createLogger } from '../../src/logging.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { createTestRole, SERVER_GRANTS, type TestRole } from '../support/roles.js';

// DECISIONS.md: the server never serves an unsafe feed silently. If it cannot compute the settled
// horizon, it refuses to start with a one-line reason that names the grant.
describe('the settled feed, checked at start', () => {
  const database = useTestDatabase();
  const unmigrated = useTestDatabase();
  let role: TestRole;
  const pools: pg.Pool[] = [];
  const poolOf = (url: string, max = 2) => {
    const pool = createPool(url, { max });
    pools.push(pool);
    return pool;
  };
  const asAdmin = async (sql: string) => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(sql).finally(() => admin.end());
  };

  beforeAll(async () => {
    await migrate(database.url);
    role = await createTestRole(database.url, 'lf_server', SERVER_GRANTS);
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('passes for a role that is not a superuser, with the default privileges', async () => {
    await expect(checkSettledFeed(poolOf(role.url))).resolves.toBeUndefined();
  });

  it('passes through a pool of one connection (DB_POOL_SIZE=1), which it never waits on for a second', async () => {
    const pool = poolOf(role.url, 1);
    await expect(checkSettledFeed(pool)).resolves.toBeUndefined();
    expect(pool.totalCount).toBeLessThanOrEqual(1);
  });

  it('refuses to start a server whose role cannot read pg_locks, naming the grant', async () => {
    await asAdmin('REVOKE SELECT ON pg_catalog.pg_locks FROM PUBLIC');
    try {
      const config = loadConfig({ DATABASE_URL: role.url, LOG_LEVEL: 'silent' });
      const started = createServer(config, { pool: poolOf(role.url), logger: createLogger('silent') });
      await expect(started).rejects.toThrow(`GRANT SELECT ON pg_catalog.pg_locks TO ${role.name}`);
      await asAdmin(`GRANT SELECT ON pg_catalog.pg_locks TO ${role.name}`);
      await expect(checkSettledFeed(poolOf(role.url))).resolves.toBeUndefined();
    } finally {
      await asAdmin('GRANT SELECT ON pg_catalog.pg_locks TO PUBLIC');
    }
  });

  it('refuses to start while a feed trigger is disabled or back in the default mode (DISABLE/ENABLE TRIGGER ALL, as pg_restore --disable-triggers runs)', async () => {
    const config = loadConfig({ DATABASE_URL: role.url, LOG_LEVEL: 'silent' });
    try {
      await asAdmin('ALTER TABLE loads DISABLE TRIGGER loads_keep_updated_at');
      await expect(createServer(config, { pool: poolOf(role.url), logger: createLogger('silent') })).rejects.toThrow(
        "the settled feed's trigger loads_keep_updated_at on loads is disabled; as the table's owner run: ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at",
      );
      await asAdmin('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at');
      await asAdmin('ALTER TABLE loads DISABLE TRIGGER ALL');
      await asAdmin('ALTER TABLE loads ENABLE TRIGGER ALL');
      await expect(checkSettledFeed(poolOf(role.url))).rejects.toThrow(/fires only while session_replication_role is origin.*ENABLE ALWAYS TRIGGER loads_keep_updated_at$/);
    } finally {
      for (const trigger of FEED_TRIGGERS) {
        await asAdmin(enableFeedTrigger(trigger));
      }
    }
    await expect(checkSettledFeed(poolOf(role.url))).resolves.toBeUndefined();
  });

  it('names each feed trigger that is missing, and the file that makes it', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      for (const trigger of FEED_TRIGGERS) {
        await admin.query('BEGIN');
        await admin.query(`DROP TRIGGER ${trigger} ON loads`);
        expect(await feedTriggerProblem(admin)).toBe(
          `the settled feed's trigger ${trigger} on loads is missing; re-create it as server/sql/triggers/loads.${trigger}.sql does`,
        );
        await admin.query('ROLLBACK');
      }
      expect(await feedTriggerProblem(admin)).toBeUndefined();
    } finally {
      await admin.end();
    }
  });

  it('answers /readyz with a 503 and the one-line reason while a feed trigger is not ALWAYS, and ready again once it is', async () => {
    const config = loadConfig({ DATABASE_URL: role.url, LOG_LEVEL: 'silent' });
    const server = await createServer(config, { pool: poolOf(role.url), logger: createLogger('silent') });
    const readyz = async () => server.inject({ method: 'GET', url: '/readyz' });
    const until = async (status: number) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const response = await readyz();
        if (response.statusCode === status) return response;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`/readyz did not answer ${status}`);
    };
    try {
      await server.initialize();
      await until(200);
      await asAdmin('ALTER TABLE loads ENABLE TRIGGER loads_bump_feed_versions_changed');
      const unready = await until(503);
      expect(JSON.parse(unready.payload)).toEqual({
        error:
          "the settled feed's trigger loads_bump_feed_versions_changed on loads fires only while session_replication_role is origin (the default mode), so replicated and replica-role writes skip it; as the table's owner run: ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_changed",
      });
    } finally {
      await asAdmin('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_changed');
    }
    await until(200);
    await server.stop();
  });

  it('refuses a counting trigger out of its mode: a replica-mode row trigger made ALWAYS would count beside its statement trigger', async () => {
    try {
      await asAdmin('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_inserted_replicated');
      await expect(checkSettledFeed(poolOf(role.url))).rejects.toThrow(
        "the settled feed's trigger loads_count_inserted_replicated on loads fires ALWAYS, beside a trigger that does its work in the other modes; as the table's owner run: ALTER TABLE loads ENABLE REPLICA TRIGGER loads_count_inserted_replicated",
      );
      await asAdmin('ALTER TABLE loads ENABLE REPLICA TRIGGER loads_count_inserted_replicated');
      await asAdmin('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_deleted');
      await expect(checkSettledFeed(poolOf(role.url))).rejects.toThrow(/loads_count_deleted on loads fires ALWAYS.*ALTER TABLE loads ENABLE TRIGGER loads_count_deleted$/);
    } finally {
      for (const trigger of FEED_TRIGGERS) await asAdmin(enableFeedTrigger(trigger));
    }
    await expect(checkSettledFeed(poolOf(role.url))).resolves.toBeUndefined();
  });

  it('refuses a database that was never migrated, saying to migrate', async () => {
    await expect(checkSettledFeed(poolOf(unmigrated.url))).rejects.toThrow('run `loadfeed-server migrate` first');
  });
});
