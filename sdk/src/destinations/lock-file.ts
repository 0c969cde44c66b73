// One writer per file copy: `<copy>.lock` is created exclusively and holds the writer's process id and
// host. A second sync finds it and stops with a line; a lock left by a process that no longer runs (one
// killed with SIGKILL) is taken over, so a kill never blocks the next run.
import { hostname } from 'node:os';
import { open, readFile, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError } from '@loadfeed/spec/cli';

export interface FileLock {
  release(): Promise<void>;
}

interface Holder {
  pid: number;
  host: string;
}

/**
 * The lock of a copy, beside the file it names once symbolic links and relative parts are resolved:
 * `loads.db`, `./loads.db` and a link to it are one copy with one lock.
 */
async function lockPathOf(path: string): Promise<string> {
  const file = await realpath(path).catch(async () => join(await realpath(dirname(path)).catch(() => resolve(dirname(path))), basename(path)));
  return `${file}.lock`;
}

/**
 * This machine's name, or '' where the runtime may not read it (Deno without --allow-sys): a lock is then
 * judged as this host's, by its process id, which a copy on a shared disk written from two hosts at once
 * would need the name for.
 */
function thisHost(): string {
  try {
    return hostname();
  } catch {
    return '';
  }
}

/** Takes the lock on `path` (the copy's file) or throws a CliError naming the process that holds it. */
export async function lockFile(path: string): Promise<FileLock> {
  const lockPath = await lockPathOf(path);
  const me: Holder = { pid: process.pid, host: thisHost() };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const file = await open(lockPath, 'wx');
      try {
        await file.write(JSON.stringify(me));
        await file.sync();
      } finally {
        await file.close();
      }
      let held = true;
      // Once only: a second release must not remove a lock another run has taken since.
      return {
        release: async () => {
          if (!held) return;
          held = false;
          await rm(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(lockPath);
    // A lock without its holder yet is being written by a writer that has just taken it.
    if (holder === undefined && (await isFresh(lockPath))) throw new CliError(`another loadfeed sync is writing ${path} now (${lockPath}); try again when it ends`);
    if (holder !== undefined && (holder.host !== me.host || isRunning(holder.pid))) {
      const where = holder.host === me.host ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
      throw new CliError(`another loadfeed sync is writing ${path} now (${where}, ${lockPath}); try again when it ends`);
    }
    // Its writer is gone (or it was never written whole): whatever it wrote is whole up to its cursor.
    await rm(lockPath, { force: true });
  }
  throw new CliError(`cannot take the lock ${lockPath}: another process keeps taking it`);
}

async function readHolder(lockPath: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? { pid: parsed.pid, host: parsed.host } : undefined;
  } catch {
    return undefined;
  }
}

async function isFresh(lockPath: string): Promise<boolean> {
  const info = await stat(lockPath).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs < 10_000;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
