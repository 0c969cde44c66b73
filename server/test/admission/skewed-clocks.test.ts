// Two `loadfeed-server start` on one database, the second with its clock 90 s ahead (Debian's libfaketime,
// preloaded; scripts/provision.sh installs it): the key's limit holds, Retry-After stays within a window,
// and both instances give the same Reset, because the window runs on the database's clock.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { CLI, cliEnv, exited } from '../cli/run-cli.js';

const READY = /listening on (http:\/\/\S+)/;
const SKEW_S = 90;

/** Where Debian puts the preload library (its multiarch folder). */
function libfaketime(): string {
  const found = readdirSync('/usr/lib').map((folder) => join('/usr/lib', folder, 'faketime', 'libfaketime.so.1')).find((path) => existsSync(path));
  if (!found) throw new Error('libfaketime is not installed: run scripts/provision.sh (Debian package libfaketime)');
  return found;
}

const running = new Set<ChildProcess>();

async function start(env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'start'], { env: cliEnv({ PORT: '0', ...env }), stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  const exit = exited(child).finally(() => running.delete(child));
  let output = '';
  child.stderr!.setEncoding('utf8');
  return new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      output += chunk;
      const ready = READY.exec(output);
      if (ready) resolve(ready[1]!);
    });
    void exit.then((code) => reject(new Error(`start exited with ${code} before listening: ${output}`)));
  });
}

interface Answer {
  status: number;
  date: number;
  remaining: number;
  reset: number;
  retryAfter?: number;
}

async function get(baseUrl: string, key: string): Promise<Answer> {
  const response = await fetch(`${baseUrl}/api/v1/loads?pageSize=1`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  const header = (name: string) => response.headers.get(name);
  const answer: Answer = { status: response.status, date: Date.parse(header('date')!) / 1000, remaining: Number(header('x-ratelimit-remaining')), reset: Number(header('x-ratelimit-reset')) };
  if (header('retry-after') !== null) answer.retryAfter = Number(header('retry-after'));
  return answer;
}

describe('two instances whose clocks are 90 s apart', () => {
  const database = useTestDatabase();
  let onTime: string;
  let ahead: string;
  let key: string;

  beforeAll(async () => {
    await migrate(database.url);
    const pool = createPool(database.url, { max: 1 });
    try {
      await addCustomer(pool, 'acme');
      key = (await createKey(pool, 'acme', { rateLimit: 10 })).key;
    } finally {
      await pool.end();
    }
    [onTime, ahead] = await Promise.all([
      start({ DATABASE_URL: database.url }),
      start({ DATABASE_URL: database.url, LD_PRELOAD: libfaketime(), FAKETIME: `+${SKEW_S}s` }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([...running].map((child) => {
      const exit = exited(child);
      child.kill('SIGTERM');
      return exit;
    }));
  });

  it('run with clocks 90 s apart (a 401 carries each instance\'s own Date)', async () => {
    const [own, skewed] = await Promise.all([fetch(`${onTime}/api/v1/loads`), fetch(`${ahead}/api/v1/loads`)]);
    const skew = (Date.parse(skewed.headers.get('date')!) - Date.parse(own.headers.get('date')!)) / 1000;
    expect(skew).toBeGreaterThanOrEqual(SKEW_S - 2);
    expect(skew).toBeLessThanOrEqual(SKEW_S + 2);
  });

  it(`admit exactly the limit, answer Retry-After within 1..${RATE_WINDOW_SECONDS} and the same Reset and Date from both`, async () => {
    const answers: Answer[] = [];
    for (let index = 0; index < 40; index += 1) answers.push(await get(index % 2 ? ahead : onTime, key));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    expect(answers.slice(0, 10).map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(answers.slice(10).map((answer) => answer.status)).toEqual(Array(30).fill(429));
    expect(answers.slice(0, 10).map((answer) => answer.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (const answer of answers.slice(10)) {
      expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
      expect(answer.retryAfter).toBeLessThanOrEqual(RATE_WINDOW_SECONDS);
    }
    // Reset: when the first request leaves the window, the same from both instances.
    expect(new Set(answers.map((answer) => answer.reset)).size).toBe(1);
    // Date: the database's clock when the request was counted, on both; Reset a window (to 1 s) after the first.
    const dates = answers.map((answer) => answer.date);
    expect(Math.max(...dates) - Math.min(...dates)).toBeLessThan(30);
    expect([RATE_WINDOW_SECONDS, RATE_WINDOW_SECONDS + 1]).toContain(answers[0]!.reset - answers[0]!.date);
  });
});
