// `loadfeed sync` on a real terminal (a pseudo-terminal from util-linux `script`): one bar redrawn in
// place, with rows so far of the total, the request and the ETA, and a visible countdown while the rate
// limit paces the sync.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { usePacedServer } from './paced-server.js';
import { SLOW_TEST_MS, startCliInTerminal, useScratchFolder } from './run-cli.js';

const paced = usePacedServer();
const scratch = useScratchFolder();

it('on a terminal, the progress bar redraws in place and shows "waiting for quota (Ns)" while paced', async () => {
  const customer = await paced.customer();
  const sync = startCliInTerminal(['sync', '--out', join(scratch.path, 'terminal.ndjson'), '--page-size', '5'], {
    LOADFEED_BASE_URL: paced.baseUrl,
    LOADFEED_API_KEY: customer.slowKey,
  });

  await sync.printed(/waiting for quota \(\d+s\)/);
  // Ctrl-C typed on the terminal: the terminal sends SIGINT to the CLI.
  sync.child.stdin!.write('\x03');
  const result = await sync.done;

  const screen = result.stdout;
  expect(screen).toContain('\r\x1b[2K');
  const frames = screen.split('\r\x1b[2K').filter((frame) => frame.startsWith('['));
  expect(frames.length).toBeGreaterThan(0);
  expect(frames[0]).toMatch(/^\[[█░]+\] +\d+% · \d+\/\d+ rows · request \d+ · (quota \d+\/2 · )?ETA /);
  expect(frames.some((frame) => /waiting for quota \((\d+)s\)/.test(frame) && /ETA (\d+m)?\d+s/.test(frame))).toBe(true);
  expect(screen).not.toContain(customer.slowKey);
  expect(result.code).toBe(130);
}, SLOW_TEST_MS);
