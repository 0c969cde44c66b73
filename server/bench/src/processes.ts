// The two servers under test run as processes of their own, as they would in production, and are
// stopped after each measurement.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';

const READY = /listening on (http:\/\/[^\s]+)/;

export interface RunningServer {
  baseUrl: string;
  /**
   * CPU milliseconds (user + system) the process has used so far, from /proc on Linux (NaN elsewhere):
   * unlike throughput, the cost per request hardly moves when other work shares the machine.
   */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc's counters: 100 on Linux. */
const TICKS_PER_SECOND = 100;

function cpuMsOf(pid: number | undefined): number {
  try {
    // Fields after the command name (which may hold spaces) start at the state, field 3; utime and stime are 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Runs `node <script> <args>` and resolves once it prints that it listens. */
export async function startServerProcess(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunningServer> {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = once(child, 'exit');
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const watch = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const ready = READY.exec(output);
      if (ready) resolve(ready[1]!);
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    void exit.then(([code]) => reject(new Error(`${script} exited with ${String(code)} before listening:\n${output}`)));
  });
  return {
    baseUrl,
    cpuMs: () => cpuMsOf(child.pid),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exit;
    },
  };
}

/**
 * CPU milliseconds all of this machine's PostgreSQL processes have used so far (NaN where /proc is
 * missing). Other databases' work on the same server counts too: read it from a quiet machine.
 *
 * Each process's own time (utime, stime) plus the time of its children that have ended (cutime, cstime):
 * a backend that exits takes its own counters with it, and the kernel adds them to the postmaster's
 * children's counters when the postmaster reaps it. Without the latter, a server's pool closing its
 * connections during a measurement took their whole CPU off the total, and a run could read negative.
 */
export function postgresCpuMs(): number {
  let total = 0;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (!stat.includes('(postgres)')) continue;
        // After the command's closing parenthesis: state is field 0, utime 11, stime 12, cutime 13, cstime 14.
        const fields = stat.split(') ')[1]!.split(' ');
        const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
        total += (ticks * 1000) / TICKS_PER_SECOND;
      } catch {
        // The process ended between the listing and the read.
      }
    }
  } catch {
    return Number.NaN;
  }
  return total;
}
