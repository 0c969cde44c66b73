// server/deploy/compose: the compose file parses, its services start in an order that puts the migration
// between PostgreSQL and the servers, its secrets come from files that make-secrets.sh writes, and
// HAProxy and PgBouncer point at the services the file declares.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { COMPOSE_DIR, dependenciesOf, readComposeFile, secretMounts, startOrder } from '../support/compose-file.js';

const file = await readComposeFile();
const servers = Object.keys(file.services).filter((name) => /^server-\d+$/.test(name));
const readText = (name: string) => readFile(`${COMPOSE_DIR}/${name}`, 'utf8');

describe('compose.yaml', () => {
  it('has PostgreSQL, a migration, PgBouncer, two server instances and HAProxy', () => {
    expect(Object.keys(file.services).sort()).toEqual(['db', 'haproxy', 'migrate', 'pgbouncer', 'server-1', 'server-2']);
    expect(servers).toHaveLength(2);
  });

  it('names the public images a user pulls, each replaceable through a variable', async () => {
    const text = await readText('compose.yaml');
    expect(file.services.db!.image).toMatch(/^docker\.io\/library\/postgres:\d+/);
    expect(file.services.pgbouncer!.image).toMatch(/^docker\.io\/[a-z]+\/pgbouncer:/);
    expect(file.services.haproxy!.image).toMatch(/^docker\.io\/library\/haproxy:\d/);
    for (const variable of ['POSTGRES_IMAGE', 'PGBOUNCER_IMAGE', 'HAPROXY_IMAGE', 'LOADFEED_IMAGE']) expect(text).toContain(`\${${variable}:-`);
    const replaced = await readComposeFile({ LOADFEED_IMAGE: 'localhost/loadfeed-server:next' });
    for (const name of [...servers, 'migrate']) expect(replaced.services[name]!.image).toBe('localhost/loadfeed-server:next');
  });

  it('migrates after PostgreSQL is healthy and starts every server only once the migration succeeded', () => {
    expect(file.services.migrate!.command).toEqual(['migrate']);
    expect(file.services.migrate!.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    for (const name of servers) {
      expect(file.services[name]!.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(dependenciesOf(file, name)).toEqual(new Set(['migrate', 'db', 'pgbouncer']));
    }
    const order = startOrder(file);
    expect(order.indexOf('migrate')).toBeGreaterThan(order.indexOf('db'));
    for (const name of servers) expect(order.indexOf(name)).toBeGreaterThan(order.indexOf('migrate'));
    expect(order.at(-1)).toBe('haproxy');
  });

  it('start order refuses a cycle and an unknown service', () => {
    const cyclic = structuredClone(file);
    cyclic.services.db!.depends_on = { haproxy: { condition: 'service_started' } };
    expect(() => startOrder(cyclic)).toThrow(/cycle/);
    const unknown = structuredClone(file);
    unknown.services.haproxy!.depends_on = { 'server-3': { condition: 'service_started' } };
    expect(() => startOrder(unknown)).toThrow(/server-3/);
  });

  it('holds no secret inline: the password reaches each service through a secret file or the env file', async () => {
    for (const [name, service] of Object.entries(file.services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        expect(`${name}: ${variable}=${value}`).not.toMatch(/PASSWORD=|postgres(ql)?:\/\/[^/@]*:[^/@]*@/i);
      }
    }
    expect(file.services.db!.environment?.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    expect(secretMounts(file.services.db!).map((mount) => mount.target)).toContain('/run/secrets/postgres_password');
    for (const name of [...servers, 'migrate']) expect(file.services[name]!.env_file).toEqual(['secrets/loadfeed.env']);
    // Every secret file and env file is one that make-secrets.sh writes.
    const maker = await readText('make-secrets.sh');
    for (const secret of Object.values(file.secrets)) expect(maker).toContain(`> ${secret.file}`);
    expect(maker).toContain('> secrets/loadfeed.env');
    expect(await readText('.gitignore')).toContain('secrets/');
  });

  it("PgBouncer reads its userlist from the secret's mount and forwards to the db service", async () => {
    const ini = await readText('pgbouncer.ini');
    const [userlist] = secretMounts(file.services.pgbouncer!);
    expect(ini).toMatch(new RegExp(`^auth_file = ${userlist!.target}$`, 'm'));
    expect(ini).toMatch(/^pool_mode = transaction$/m);
    expect(ini).toMatch(/^loadfeed = host=db port=5432 /m);
    expect(file.services.pgbouncer!.volumes).toContain('./pgbouncer.ini:/etc/pgbouncer/pgbouncer.ini:ro');
  });

  it('HAProxy balances exactly the server services, checking /readyz', async () => {
    const cfg = await readText('haproxy.cfg');
    const backends = [...cfg.matchAll(/^\s*server (\S+) (\S+):3000 check$/gm)].map((match) => match[2]);
    expect(backends.sort()).toEqual(servers.sort());
    expect(cfg).toMatch(/option httpchk GET \/readyz/);
    for (const name of servers) expect(file.services[name]!.environment).toMatchObject({ HOST: '0.0.0.0', PORT: '3000' });
    expect(file.services.haproxy!.volumes).toContain('./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
  });
});
