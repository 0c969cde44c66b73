// Database roles of a test's own, for what must hold when the server and the writers are not
// superusers. Roles belong to the whole PostgreSQL cluster, so each gets a random name and is dropped
// (with every privilege it was granted) when the test file ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

export interface TestRole {
  name: string;
  /** The test database's URL, connecting as this role. */
  url: string;
}

/** Creates a login role in the database at `adminUrl` (a superuser's URL) and runs `grants` there as SQL. */
export async function createTestRole(adminUrl: string, prefix: string, grants: (role: string) => string[]): Promise<TestRole> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await asAdmin(adminUrl, async (admin) => {
    await admin.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password}'`);
    for (const statement of grants(name)) await admin.query(statement);
  });
  afterAll(async () => {
    await asAdmin(adminUrl, async (admin) => {
      await admin.query(`DROP OWNED BY ${name}`);
      await admin.query(`DROP ROLE ${name}`);
    });
  });
  const url = new URL(adminUrl);
  url.username = name;
  url.password = password;
  return { name, url: url.toString() };
}

async function asAdmin(adminUrl: string, work: (admin: pg.Client) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

/** What the server's role needs: its tables and sequences (pg_locks is readable by every role by default). */
export const SERVER_GRANTS = (role: string): string[] => [
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`,
  `GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
];

/** What an ETL's role needs to write loads: nothing of the keys. */
export const WRITER_GRANTS = (role: string): string[] => [
  `GRANT SELECT ON customers TO ${role}`,
  `GRANT SELECT, INSERT, UPDATE ON loads TO ${role}`,
  `GRANT SELECT, INSERT, UPDATE ON customer_feed_versions TO ${role}`,
];
