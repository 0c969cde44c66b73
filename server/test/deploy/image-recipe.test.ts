// server/deploy/image: the recipe's lint. The Containerfile starts FROM scratch, runs as a user that is
// not root, has loadfeed-server as its entrypoint with `start` by default, checks /readyz, stops on
// SIGTERM and declares no secret; build.sh pins Node by version and integrity, refuses a host that is not
// amd64 and says what failed when apt-get cannot download. The healthcheck script itself runs here
// against a port that answers 200, then 503, then nothing.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const IMAGE_DIR = new URL('../../deploy/image/', import.meta.url);
const containerfile = await readFile(new URL('Containerfile', IMAGE_DIR), 'utf8');
const buildScript = await readFile(new URL('build.sh', IMAGE_DIR), 'utf8');

/** The Containerfile's instructions, continuation lines joined, comments dropped. */
const instructions = containerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const [keyword, ...rest] = line.trim().split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
  });
const stubs = await mkdtemp(join(tmpdir(), 'loadfeed-build-stubs-'));
afterAll(() => rm(stubs, { recursive: true, force: true }));

/** build.sh's exit code and stderr with stand-ins for some programs (name → shell body) first on PATH. */
async function buildWith(programs: Record<string, string>): Promise<{ code: number; stderr: string }> {
  for (const [name, body] of Object.entries(programs)) {
    await writeFile(join(stubs, name), `#!/bin/sh\n${body}\n`);
    await chmod(join(stubs, name), 0o755);
  }
  const env = { ...process.env, PATH: `${stubs}:${process.env.PATH ?? ''}`, CONTAINER_ENGINE: 'false' };
  return promisify(execFile)('sh', [fileURLToPath(new URL('build.sh', IMAGE_DIR))], { env }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

const all = (keyword: string) => instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
const last = (keyword: string) => all(keyword).at(-1);

describe('the image recipe', () => {
  it('starts from scratch and copies only the two folders build.sh lays out', () => {
    expect(all('FROM')).toEqual(['scratch']);
    expect(all('RUN')).toEqual([]);
    expect(all('COPY')).toEqual(['system/ /', 'app/ /opt/loadfeed/']);
    expect(buildScript).toContain('"$work/context/system"');
    expect(buildScript).toContain('"$work/context/app"');
  });

  it('runs as a numeric user that is not root, one that build.sh writes into /etc/passwd', () => {
    const user = last('USER');
    expect(user).toMatch(/^[1-9]\d+:[1-9]\d+$/);
    expect(buildScript).toContain(`UID_GID=${user!.split(':')[0]}`);
    expect(buildScript).toMatch(/loadfeed:x:%s:%s:/);
  });

  it('has loadfeed-server as its exec-form entrypoint and start as its default command', () => {
    expect(JSON.parse(last('ENTRYPOINT')!)).toEqual(['/usr/local/bin/node', '/opt/loadfeed/server/bin/loadfeed-server.js']);
    expect(JSON.parse(last('CMD')!)).toEqual(['start']);
    expect(last('STOPSIGNAL')).toBe('SIGTERM');
    expect(all('ENV').join(' ')).toMatch(/HOST=0\.0\.0\.0/);
  });

  it('checks its health with the healthcheck script, which asks /readyz', async () => {
    expect(last('HEALTHCHECK')).toMatch(/CMD \["\/usr\/local\/bin\/node", "\/opt\/loadfeed\/healthcheck\.mjs"\]$/);
    expect(await readFile(new URL('healthcheck.mjs', IMAGE_DIR), 'utf8')).toContain('/readyz');
  });

  it('declares no secret: no ENV, ARG or LABEL names a password, key, token or database URL', () => {
    for (const args of [...all('ENV'), ...all('ARG'), ...all('LABEL')]) expect(args).not.toMatch(/PASSWORD|SECRET|TOKEN|_KEY|DATABASE_URL|postgres:\/\//i);
    // build.sh reads no .npmrc or env file into the context.
    expect(buildScript).not.toMatch(/\.npmrc|\.env\b/);
  });

  it('pins Node by version and by the registry integrity that build.sh checks', () => {
    expect(buildScript).toMatch(/^NODE_VERSION=\d+\.\d+\.\d+$/m);
    expect(buildScript).toMatch(/^NODE_INTEGRITY='sha512-[A-Za-z0-9+/]{86}=='$/m);
    expect(buildScript).toContain('!= "$NODE_INTEGRITY"');
  });

  it('build.sh and make-secrets.sh are valid shell', async () => {
    for (const script of [fileURLToPath(new URL('build.sh', IMAGE_DIR)), fileURLToPath(new URL('../../deploy/compose/make-secrets.sh', import.meta.url))]) {
      await expect(promisify(execFile)('sh', ['-n', script])).resolves.toBeDefined();
    }
  });

  it('build.sh refuses a host whose Debian architecture is not amd64, before it downloads anything', async () => {
    const { code, stderr } = await buildWith({ dpkg: 'echo arm64', 'apt-get': 'echo "apt-get was run" >&2; exit 1' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^image: this host's Debian architecture is arm64: the image is built for amd64 only .*build it on an amd64 host$/m);
    expect(stderr).not.toMatch(/apt-get was run|Debian packages:/);
  });

  it("build.sh shows apt-get download's error and says to run apt-get update", async () => {
    const { code, stderr } = await buildWith({ dpkg: 'echo amd64', 'apt-get': 'echo "E: Unable to locate package libc6" >&2; exit 100' });
    expect(code).toBe(1);
    expect(stderr).toContain('image: apt-get download libc6 libgcc-s1 libstdc++6 failed:\n  E: Unable to locate package libc6\n');
    expect(stderr).toMatch(/run apt-get update \(as root\), then npm run image again/);
    expect(stderr).not.toMatch(/building|Node \d/);
  });

  it('the healthcheck passes on a 200 from /readyz and fails on a 503 or no answer', async () => {
    let status = 200;
    const asked: string[] = [];
    const server: Server = createServer((request, response) => {
      asked.push(request.url!);
      response.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as AddressInfo).port);
    const healthcheck = () =>
      promisify(execFile)(process.execPath, [fileURLToPath(new URL('healthcheck.mjs', IMAGE_DIR))], { env: { PORT: port } }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
    try {
      expect(await healthcheck()).toBe(0);
      status = 503;
      expect(await healthcheck()).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await healthcheck()).toBe(1);
    expect(asked).toEqual(['/readyz', '/readyz']);
  });
});
