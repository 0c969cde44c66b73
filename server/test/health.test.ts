// /readyz answers anyone, so it names standbys without saying where they are: by position
// (`standby-1`, …) or by the names an operator gives them (DATABASE_REPLICA_NAMES), never host:port/db.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { startApp, type TestApp } from './support/app.js';

/** A loopback port nothing listens on: a standby that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('/readyz', () => {
  const database = useTestDatabase();
  let ports: number[];
  let apps: TestApp[] = [];

  beforeAll(async () => {
    ports = [await closedPort(), await closedPort()];
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  const standbyUrls = () => ports.map((port) => `postgres://feed:secret@127.0.0.1:${port}/replica_db`).join(',');

  it('names each standby by its position, and shows no address, port, database or user of it', async () => {
    const app = await startApp(database.url, { env: { DATABASE_REPLICA_URLS: standbyUrls() } });
    apps.push(app);
    const ready = await app.get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(JSON.parse(ready.payload)).toEqual({ status: 'ready', databases: { primary: 'up', standbys: { 'standby-1': 'down', 'standby-2': 'down' } } });
    for (const hidden of ['127.0.0.1', String(ports[0]), String(ports[1]), 'replica_db', 'feed', 'secret']) expect(ready.payload).not.toContain(hidden);
  });

  it('names each standby as DATABASE_REPLICA_NAMES says, in order', async () => {
    const app = await startApp(database.url, { env: { DATABASE_REPLICA_URLS: standbyUrls(), DATABASE_REPLICA_NAMES: 'east-1,west.2' } });
    apps.push(app);
    expect(JSON.parse((await app.get('/readyz')).payload)).toMatchObject({ databases: { standbys: { 'east-1': 'down', 'west.2': 'down' } } });
  });
});
