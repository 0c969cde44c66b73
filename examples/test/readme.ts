// The fenced shell blocks of every README in the repository (and the CI recipes of
// examples/conformance-in-ci, in YAML). Each is marked on the line before it, either
// `<!-- readme-test: <section> [background] [file=<name>] -->`, runnable, or
// `<!-- readme-test: not-runnable: <why> -->`, and ./readme-blocks.test.ts holds every block to that.
// A section's blocks are taken in order across the READMEs: a `file=` block is saved under that name, a
// `background` block is started as its own process group (as a terminal runs it) and waited for on
// /readyz, and every other block runs in one bash session per section, stopping at the first failing
// command. The only change made to a command is the port: `127.0.0.1:3000` and `:3001` (and `PORT=3001`)
// become the free port the test chose, and PORT says the same to the server.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { CHECKOUT, run, type RunOptions, type RunResult } from './support.js';

/** The languages of a fence that holds commands to run: a shell's, a crontab's, a CI recipe's. */
export const COMMAND_LANGUAGES = ['sh', 'bash', 'shell', 'console', 'cron', 'yaml', 'yml'];

export interface Block {
  /** The README, relative to the checkout, and the line of the fence. */
  readme: string;
  line: number;
  language: string;
  /** The section it runs in; undefined for a block marked not runnable, or not marked at all. */
  section: string | undefined;
  /** Why it cannot run, for a block marked not runnable. */
  notRunnable: string | undefined;
  marked: boolean;
  background: boolean;
  file: string | undefined;
  code: string;
}

/** Every README.md under the checkout, outside node_modules and build output, in path order. */
export function readmeFiles(folder = CHECKOUT): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.isDirectory() && !['node_modules', 'dist', '.git', '.loadfeed', 'test-results'].includes(entry.name) && !entry.name.startsWith('.')) {
      found.push(...readmeFiles(join(folder, entry.name)));
    } else if (entry.isFile() && entry.name === 'README.md') {
      found.push(relative(CHECKOUT, join(folder, entry.name)));
    }
  }
  return found.sort((a, b) => (a === 'README.md' ? -1 : b === 'README.md' ? 1 : a.localeCompare(b)));
}

const MARKER = /^<!-- readme-test: (.*) -->$/;

/** The fenced blocks of one README whose language holds commands, each with its marker read. */
export function blocksIn(readme: string): Block[] {
  const lines = readFileSync(join(CHECKOUT, readme), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\w*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    const language = open[1]!;
    const code = `${lines.slice(index + 1, end).join('\n')}\n`;
    const start = index;
    index = end;
    const previous = lines.slice(0, start).reverse().find((line) => line.trim() !== '') ?? '';
    const marker = MARKER.exec(previous.trim())?.[1]?.trim();
    if (!COMMAND_LANGUAGES.includes(language) && marker === undefined) continue;
    const notRunnable = marker?.startsWith('not-runnable') ? marker.replace(/^not-runnable:?\s*/, '') : undefined;
    const [section, ...flags] = marker === undefined || notRunnable !== undefined ? [] : marker.split(/\s+/);
    blocks.push({
      readme,
      line: start + 1,
      language,
      section,
      notRunnable,
      marked: marker !== undefined,
      background: flags.includes('background'),
      file: flags.find((flag) => flag.startsWith('file='))?.slice('file='.length),
      code,
    });
  }
  return blocks;
}

export function allBlocks(): Block[] {
  return readmeFiles().flatMap(blocksIn);
}

const blocks = allBlocks();
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

/** The commands of a section's blocks, for a test to run after another section's in the same session. */
export function commandsOf(section: string): string {
  return blocksOf(section)
    .filter((block) => !block.file && !block.background)
    .map((block) => block.code)
    .join('\n');
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
