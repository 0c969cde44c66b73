// server/deploy/systemd/loadfeed-server.service: systemd-analyze verify accepts it without a warning,
// and it runs the server as its own user on a read-only system, with the database URL from a file.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const UNIT = new URL('../../deploy/systemd/loadfeed-server.service', import.meta.url);
const folder = await mkdtemp(join(tmpdir(), 'loadfeed-unit-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

/** systemd-analyze verify's exit code and what it printed, for the unit's text as given. */
async function verify(text: string): Promise<{ code: number; output: string }> {
  const path = join(folder, 'loadfeed-server.service');
  // The unit runs /usr/bin/node, which verify requires to exist: here it is this test's own Node.
  await writeFile(path, text.replaceAll('/usr/bin/node', process.execPath));
  try {
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', ['verify', path]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

const text = await readFile(UNIT, 'utf8');
const directives = new Map<string, string[]>();
for (const line of text.split('\n')) {
  const match = /^([A-Za-z]+)=(.*)$/.exec(line);
  if (match) directives.set(match[1]!, [...(directives.get(match[1]!) ?? []), match[2]!]);
}
const one = (name: string) => directives.get(name)?.at(-1);

describe('loadfeed-server.service', () => {
  it('passes systemd-analyze verify with nothing to say', async () => {
    expect(await verify(text)).toEqual({ code: 0, output: '' });
  });

  it('the check can fail: a misspelt directive is reported', async () => {
    const { output } = await verify(text.replace('ProtectHome=yes', 'ProtectHme=yes'));
    expect(output).toMatch(/Unknown key 'ProtectHme'/);
  });

  it('runs `start` as a user of its own, with the database URL from a root-owned environment file', () => {
    expect(one('DynamicUser')).toBe('yes');
    expect(one('User')).toBe('loadfeed');
    expect(one('EnvironmentFile')).toBe('/etc/loadfeed/loadfeed-server.env');
    expect(one('ExecStart')).toMatch(/ \/opt\/loadfeed\/server\/bin\/loadfeed-server\.js start$/);
    expect(text).not.toMatch(/^Environment=.*DATABASE_URL/m);
  });

  it('sees a read-only system, no home, no devices, no privileges, and stops with SIGTERM', () => {
    expect(one('ProtectSystem')).toBe('strict');
    for (const name of ['ProtectHome', 'PrivateTmp', 'PrivateDevices', 'NoNewPrivileges', 'ProtectKernelTunables', 'RestrictSUIDSGID']) expect(one(name)).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('KillSignal')).toBe('SIGTERM');
    // V8 writes machine code at run time: MemoryDenyWriteExecute would stop Node.
    expect(directives.has('MemoryDenyWriteExecute')).toBe(false);
  });

  it('gives equal soft and hard file limits, so that Node changes no limit at start under the filter that denies @resources', () => {
    expect(directives.get('SystemCallFilter')).toContain('~@privileged @resources');
    const limit = one('LimitNOFILE')!;
    const [soft, hard = soft] = limit.split(':');
    expect(limit).toMatch(/^\d+(:\d+)?$/);
    expect(soft).toBe(hard);
  });

  it('the example environment file names settings the server has', async () => {
    const example = await readFile(new URL('../../deploy/systemd/loadfeed-server.env.example', import.meta.url), 'utf8');
    const { SETTINGS } = await import('../../src/config/settings.js');
    const known = new Set(Object.values(SETTINGS).map((setting) => setting.env));
    const named = [...example.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]!);
    expect(named).toContain('DATABASE_URL');
    for (const name of named) expect(known).toContain(name);
  });
});
