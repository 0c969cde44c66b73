// README.md's runnable blocks. Every code block marked `<!-- readme-test: <section> [background] [file=<name>] -->`
// is taken in order: a `file=` block is saved under that name, a `background` block is started as its own
// process group (as a terminal runs it) and waited for on /readyz, and every other block runs in one bash
// session per section, stopping at the first failing command. The only change made to a command is the
// port: `127.0.0.1:3000` and `:3001` (and `PORT=3001`) become the free port the test chose, and PORT
// says the same to the server.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CHECKOUT, run, type RunOptions, type RunResult } from './support.js';

interface Block {
  section: string;
  background: boolean;
  file: string | undefined;
  code: string;
}

function readmeBlocks(): Block[] {
  const readme = readFileSync(join(CHECKOUT, 'README.md'), 'utf8');
  const marked = /<!-- readme-test: ([\w-]+)((?: [\w=.-]+)*) -->\n```\w*\n([\s\S]*?)```/g;
  return [...readme.matchAll(marked)].map(([, section, flags = '', code = '']) => {
    const words = flags.trim().split(/\s+/);
    return {
      section: section!,
      background: words.includes('background'),
      file: words.find((word) => word.startsWith('file='))?.slice('file='.length),
      code,
    };
  });
}

const blocks = readmeBlocks();
export const blocksOf = (section: string) => blocks.filter((block) => block.section === section);

/** One bash session for a section: its commands in order, a background block as a job that is interrupted at the end. */
function scriptFor(section: string, after = ''): string {
  const lines = ['set -euo pipefail', 'stop_background() { if [ -n "${BACKGROUND:-}" ]; then kill -INT -- "-$BACKGROUND" 2>/dev/null || true; wait "$BACKGROUND" 2>/dev/null || true; fi; }', 'trap stop_background EXIT'];
  for (const block of blocksOf(section)) {
    if (block.file) continue;
    const code = block.code.replaceAll(/127\.0\.0\.1:300[01]\b/g, '127.0.0.1:$PORT').replaceAll(/\bPORT=300[01]\b/g, 'PORT=$PORT');
    if (block.background) {
      lines.push(
        'set -m',
        `( ${code.trim()} ) > "$WORK/background.log" 2>&1 &`,
        'BACKGROUND=$!',
        'set +m',
        'for attempt in $(seq 1 480); do curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null && break; kill -0 "$BACKGROUND" 2> /dev/null || { cat "$WORK/background.log" >&2; exit 1; }; sleep 0.25; done',
        'curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null',
      );
    } else {
      lines.push(code);
    }
  }
  lines.push(after);
  return lines.join('\n');
}

export interface SectionRun {
  /** Where the commands run. */
  cwd: string;
  /** What the test itself writes (a background block's log). */
  work: string;
  env: Record<string, string>;
  /** Commands run after the section's, in the same session. */
  after?: string;
  outsideCheckout?: RunOptions['outsideCheckout'];
}

/** Runs a section's blocks; a failing command fails the test with the session's output. */
export async function runSection(section: string, { cwd, work, env, after, outsideCheckout }: SectionRun): Promise<RunResult> {
  for (const block of blocksOf(section).filter((candidate) => candidate.file)) await writeFile(join(cwd, block.file!), block.code);
  const result = await run('bash', ['-c', scriptFor(section, after)], { cwd, env: { ...env, WORK: work }, outsideCheckout });
  expect(result.code, `README quickstart "${section}" failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}
