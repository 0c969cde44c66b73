// Writes updatedAt directly, so that a test's feed has the history it needs: rows tied at one instant (a
// bulk load), groups spread over months. The server's own import stamps rows with their write time, which
// a test cannot choose, so this writes the column as the superuser with the loads triggers bypassed
// (session_replication_role = replica), and bumps the customer's feed version by hand (that trigger is
// bypassed too), because the server caches counts per feed version.
import pg from 'pg';

/** loadNumber -> the updatedAt to give it. */
export type Stamps = ReadonlyMap<string, Date>;

export async function restamp(databaseUrl: string, customerCode: string, stamps: Stamps): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    const { rowCount } = await client.query(
      `UPDATE loads AS l SET updated_at = s.stamp
         FROM unnest($2::text[], $3::timestamptz[]) AS s (load_number, stamp)
        WHERE l.customer_id = (SELECT id FROM customers WHERE code = $1::text) AND l.load_number = s.load_number`,
      [customerCode, [...stamps.keys()], [...stamps.values()].map((stamp) => stamp.toISOString())],
    );
    if (rowCount !== stamps.size) throw new Error(`restamp: ${stamps.size} loads asked for, ${rowCount} found for ${customerCode}`);
    await client.query(
      'UPDATE customer_feed_versions SET version = version + 1 WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text)',
      [customerCode],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

const DAY_MS = 86_400_000;

/**
 * Stamps for loads in groups of `groupSize` rows tied at one instant, the groups `spacingMs` apart and
 * ending `endAgoMs` before now: groupSize 1 gives distinct instants, groupSize = the count one bulk load.
 */
export function tiedGroups(loadNumbers: readonly string[], groupSize: number, spacingMs = 7 * DAY_MS, endAgoMs = DAY_MS): Stamps {
  const groups = Math.ceil(loadNumbers.length / groupSize);
  const end = Date.now() - endAgoMs;
  return new Map(loadNumbers.map((loadNumber, i) => [loadNumber, new Date(end - (groups - 1 - Math.floor(i / groupSize)) * spacingMs)]));
}
