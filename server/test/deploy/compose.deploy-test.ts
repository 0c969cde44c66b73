// The server deployed as an operator deploys it: `npm run image`'s image, and compose.yaml run with
// podman (test/support/compose-podman.ts) with local stand-ins for the public postgres, pgbouncer and
// haproxy images, which this machine cannot pull. An upgrade migrates first, then replaces the instances
// one at a time, while every request through HAProxy is answered. As an operator does, make-secrets.sh
// writes the password beside compose.yaml in the checkout before the image is built from that checkout;
// the image is then searched, layer by layer, for it and for files that look like secrets.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPOSE_DIR, readComposeFile } from '../support/compose-file.js';
import { podman, PodmanProject, sh } from '../support/compose-podman.js';
import { saveImage, secretLooking } from '../support/image-files.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const STANDINS = { POSTGRES_IMAGE: 'localhost/loadfeed-standin-postgres', PGBOUNCER_IMAGE: 'localhost/loadfeed-standin-pgbouncer', HAPROXY_IMAGE: 'localhost/loadfeed-standin-haproxy' };
const say = (line: string) => process.stderr.write(`deploy: ${line}\n`);

let image: string;
let project: PodmanProject;
let base: string;
const folder = await mkdtemp(join(tmpdir(), 'loadfeed-compose-'));
// secrets/ in the checkout: written by this run (and removed after it) unless an operator's is there.
const checkoutSecrets = join(COMPOSE_DIR, 'secrets');
const ownSecrets = !existsSync(checkoutSecrets);

beforeAll(async () => {
  if (ownSecrets) await sh(join(COMPOSE_DIR, 'make-secrets.sh'));
  let started = Date.now();
  image = (await sh(here('../../deploy/image/build.sh'))).trim();
  say(`built ${image} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const present = await podman(['image', 'exists', STANDINS.HAPROXY_IMAGE]);
  if (present.code !== 0 || process.env.STANDINS_REBUILD === '1') {
    started = Date.now();
    await sh(here('standins/build-standins.sh'));
    say(`built the stand-in images in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  await cp(COMPOSE_DIR, folder, { recursive: true });
  project = new PodmanProject(await readComposeFile({ ...STANDINS, LOADFEED_IMAGE: image }), folder);
  await project.down();
  started = Date.now();
  await project.up();
  await Promise.all(['server-1', 'server-2'].map((name) => project.waitHealthy(name)));
  say(`compose up (db, migrate, pgbouncer, two servers, haproxy) until both servers were healthy: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  base = `http://${project.addresses.get('haproxy')}:8080`;
});

afterAll(async () => {
  if (process.env.KEEP_DEPLOY !== '1') await project?.down();
  await rm(folder, { recursive: true, force: true });
  if (ownSecrets) await rm(checkoutSecrets, { recursive: true, force: true });
});

describe('the image', () => {
  it('runs loadfeed-server start as a user that is not root, checks /readyz, stops on SIGTERM and carries no secret', async () => {
    const [config] = JSON.parse((await podman(['image', 'inspect', image])).stdout) as {
      Config: { User: string; Entrypoint: string[]; Cmd: string[]; Env: string[]; StopSignal: string };
      Healthcheck?: { Test: string[] };
    }[];
    expect(config!.Config.User).toBe('10001:10001');
    expect(config!.Config.Entrypoint).toEqual(['/usr/local/bin/node', '/opt/loadfeed/server/bin/loadfeed-server.js']);
    expect(config!.Config.Cmd).toEqual(['start']);
    expect(config!.Config.StopSignal).toBe('SIGTERM');
    expect(config!.Healthcheck?.Test.join(' ')).toContain('/opt/loadfeed/healthcheck.mjs');
    expect(config!.Config.Env.join('\n')).not.toMatch(/DATABASE_URL|PASSWORD|lf_live_/);
    const id = await podman(['run', '--rm', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024', '--entrypoint', '/usr/local/bin/node', image, '-p', 'process.getuid()']);
    expect(id.stdout.trim()).toBe('10001');
  });

  it('holds no file that looks like a secret and not the password written before it was built, in any layer', async () => {
    const started = Date.now();
    const saved = await saveImage(image, folder);
    const layers = new Set(saved.entries.map((entry) => entry.layer));
    expect(layers.size).toBeGreaterThanOrEqual(2);
    expect(saved.entries.map((entry) => entry.name)).toContain('opt/loadfeed/server/bin/loadfeed-server.js');
    const flagged = saved.entries.flatMap(({ layer, name }) => (secretLooking(name) ? [`${layer}: ${name} (${secretLooking(name)})`] : []));
    expect(flagged).toEqual([]);
    // Only where the password was found is reported, never the password.
    const password = await readFile(join(checkoutSecrets, 'postgres_password'));
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(saved.files.filter((file) => file.bytes.includes(password)).map((file) => file.path)).toEqual([]);
    say(`image secret scan: ${saved.files.length} files, ${saved.entries.length} layer entries in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it('started without DATABASE_URL, exits non-zero and says that DATABASE_URL is needed', async () => {
    const run = await podman(['run', '--rm', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024', image], { timeoutMs: 60_000 });
    expect(run.code, run.stdout).not.toBe(0);
    expect(run.stderr).toMatch(/^loadfeed-server: no database given: set DATABASE_URL or pass --database-url /m);
    expect(run.stderr).toContain('no embedded PostgreSQL');
  });
});

describe('compose.yaml', () => {
  it('serves through HAProxy once migrated: readiness, the redirect to the reference, a key and its loads', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/api/v1/docs']);
    const customer = await project.run('migrate', ['customers', 'add', 'acme', '--name', 'ACME Freight']);
    expect(customer.code, customer.stderr).toBe(0);
    const created = await project.run('migrate', ['keys', 'create', 'acme', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const pickup = new Date(Date.now() + 86_400_000).toISOString();
    const loads = ['L-1', 'L-2'].map((loadNumber) => JSON.stringify({ loadNumber, status: 'Available', scheduledPickupDate: pickup })).join('\n');
    const imported = await project.run('migrate', ['import', 'acme', '-', '--json'], { stdin: `${loads}\n` });
    expect(imported.code, imported.stderr).toBe(0);
    const page = await fetch(`${base}/api/v1/loads`, { headers: { authorization: `Bearer ${key}` } });
    expect(page.status).toBe(200);
    expect(((await page.json()) as { totalCount: number }).totalCount).toBe(2);
  });

  it("each instance's own healthcheck passes", async () => {
    for (const name of ['server-1', 'server-2']) expect((await podman(['healthcheck', 'run', project.container(name)])).code).toBe(0);
  });

  it('an upgrade migrates first, then replaces one instance at a time, and HAProxy answers every request meanwhile', async () => {
    const next = image.replace(/:[^:]+$/, ':next');
    expect((await podman(['tag', image, next])).code).toBe(0);
    const statuses = new Map<number | string, number>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const status = await fetch(`${base}/api/v1/openapi.json`).then((response) => response.status, (error: Error) => error.message);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const started = Date.now();
    const migrated = await project.run('migrate', ['migrate'], { image: next });
    expect(migrated.code, migrated.stderr).toBe(0);
    const stops = [];
    for (const name of ['server-1', 'server-2']) {
      stops.push(await project.stop(name));
      await project.start(name, { image: next });
      await project.waitHealthy(name);
      // HAProxy puts the instance back after one passing check (inter 1s, rise 1).
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    polling = false;
    await poller;
    say(`upgrade: migrate, then both instances replaced in ${((Date.now() - started) / 1000).toFixed(1)} s; stops ${stops.map((stop) => `${stop.ms} ms`).join(', ')}; responses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // SIGTERM stops each instance cleanly (exit 0) within its grace period, not by the SIGKILL after it.
    for (const stop of stops) expect(stop).toMatchObject({ exitCode: 0 });
    for (const stop of stops) expect(stop.ms).toBeLessThan(15_000);
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)).toBeGreaterThan(20);
    for (const name of ['server-1', 'server-2']) {
      const running = await podman(['inspect', '--format', '{{.ImageName}}', project.container(name)]);
      expect(running.stdout.trim()).toBe(next);
    }
  });
});
