// The drift check beside another instance's migrate: a migrate that applies a changed definition commits
// the new function and its record together (sql-definitions.ts), so a check that read the record and the
// function at different moments would take the change for a change by hand ('changed'), and /readyz would
// answer 503 or a start would refuse. Here a definition is applied again and again, changed each time,
// while checks run beside it: none may report a drift.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitionDrift } from '../../src/db/definitions-check.js';
import type { DefinitionDrift } from '../../src/db/definition-catalog.js';
import { migrate, migrateSchema } from '../../src/db/migrate.js';
import { applySqlDefinitions, repeatableDefinitions } from '../../src/db/sql-definitions.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

/** How long definitions are applied beside the checks. */
const RACE_MS = 4_000;
/** The definition applied again and again, a comment of its body changed each time. */
const CHANGED = 'functions/feed_state.sql';

describe('the drift check while another instance migrates', () => {
  const database = useTestDatabase();
  let migrator: pg.Client;
  let checks: pg.Pool;

  beforeAll(async () => {
    await migrate(database.url);
    migrator = new pg.Client({ connectionString: database.url });
    await migrator.connect();
    await migrator.query(`SELECT set_config('search_path', 'public', false)`);
    checks = new pg.Pool({ connectionString: database.url, max: 2 });
  });
  afterAll(async () => {
    await migrator?.end();
    await checks?.end();
    await migrateSchema(database.url, { putBack: true });
  });

  it("reports no drift for a definition another migrate changes while the checks run", async () => {
    const definitions = repeatableDefinitions();
    /** The definitions with the changed file's `round`-th text: a new checksum, and a body PostgreSQL renders otherwise. */
    const round = (n: number) =>
      definitions.map((definition) =>
        definition.name === CHANGED
          ? { ...definition, text: definition.text.replace('WHERE v.customer_id = p_customer_id', `WHERE v.customer_id = p_customer_id -- round ${n}`), checksum: `round-${n}` }
          : definition,
      );
    expect(round(1).find((definition) => definition.name === CHANGED)!.text).toContain('-- round 1');

    const until = Date.now() + RACE_MS;
    let applied = 0;
    let checked = 0;
    const drifts: DefinitionDrift[] = [];
    const migrating = (async () => {
      while (Date.now() < until) {
        const report = await applySqlDefinitions(migrator, round((applied += 1)));
        expect(report.applied).toEqual([CHANGED]);
      }
    })();
    const checking = async () => {
      while (Date.now() < until) {
        drifts.push(...(await definitionDrift(checks)));
        checked += 1;
      }
    };
    await Promise.all([migrating, checking(), checking()]);

    // Enough of both for a check to have fallen between a record and its function, had it read them apart.
    expect(applied).toBeGreaterThan(50);
    expect(checked).toBeGreaterThan(200);
    expect(drifts).toEqual([]);
  }, 60_000);
});
