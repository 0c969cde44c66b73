// One `start` per data folder. The embedded PostgreSQL in LOADFEED_DATA_DIR serves one server at a time;
// a second start on the same folder is told at once which server holds it (PostgreSQL itself would wait
// ten seconds and say "Is another postmaster running"), and the other commands, given no database, are
// told where that server's database is. The holder is a small JSON file in the folder, private to its
// owner like the credentials beside it; one whose process is gone is stale and taken over.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '@loadfeed/spec/cli';

const HOLDER_FILE = 'server.json';

export interface Holder {
  pid: number;
  /** The holder's command line, to tell it from another process that got its pid after it died. */
  command: string;
  startedAt: string;
  /** Where it listens, once it does. */
  url?: string;
  /** Its embedded PostgreSQL, for the operator commands, once it runs. */
  databaseUrl?: string;
}

export interface DataDirLock {
  /** Records where the server listens and where its database is. */
  update(info: Pick<Holder, 'url' | 'databaseUrl'>): Promise<void>;
  /** Lets the folder go (only if this process still holds it). */
  release(): Promise<void>;
}

/** Takes the folder for this process, or says which live server holds it. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, HOLDER_FILE);
  let mine: Holder = { pid: process.pid, command: commandLineOf(process.pid) ?? process.argv.join(' '), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(path, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      const write = () => writeFile(path, JSON.stringify(mine), { mode: 0o600 });
      return {
        async update(info) {
          mine = { ...mine, ...info };
          await write();
        },
        async release() {
          if (readHolder(path)?.pid === process.pid) await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder && isRunning(holder)) throw new CliError(heldBy(holder, dataDir));
      await rm(path, { force: true });
    }
  }
  throw new CliError(`cannot take ${dataDir} for this server: ${path} keeps being written by another process`);
}

/** The live server that holds `dataDir`, if any. */
export function runningHolderOf(dataDir: string): Holder | undefined {
  const holder = readHolder(join(dataDir, HOLDER_FILE));
  return holder && isRunning(holder) ? holder : undefined;
}

function heldBy(holder: Holder, dataDir: string): string {
  const where = holder.url ? `listening on ${holder.url}` : 'starting';
  return (
    `another loadfeed-server (pid ${holder.pid}, ${where}) is running on the embedded PostgreSQL in ${dataDir}: ` +
    `stop it first (Ctrl-C in its terminal, or kill ${holder.pid}), or give this one another LOADFEED_DATA_DIR or a DATABASE_URL`
  );
}

function readHolder(path: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    return typeof holder.pid === 'number' && typeof holder.command === 'string' ? (holder as Holder) : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Where the command line can be read (Linux), a process with the same pid and another command is not it.
  const command = commandLineOf(holder.pid);
  return command === undefined || command === holder.command;
}

function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return undefined;
  }
}
