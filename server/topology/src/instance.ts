// One instance of the server as production runs it: `loadfeed-server start` in a process of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, stopChild } from './processes.js';

const BIN = fileURLToPath(new URL('../../bin/loadfeed-server.js', import.meta.url));
const READY = /listening on (http:\/\/\S+)/;

export interface Instance {
  port: number;
  baseUrl: string;
  metricsUrl: string;
  /** CPU milliseconds (user + system) the process has used so far, from /proc. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** CPU milliseconds (user + system) of a process so far, from /proc on Linux (NaN elsewhere). */
export function cpuMsOf(pid: number | undefined): number {
  try {
    // Fields after the command name (which may hold spaces) start at the state, field 3; utime and stime are 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** How many times an instance is started on other ports when the ones drawn were taken meanwhile. */
const PORT_ATTEMPTS = 3;
const PORT_TAKEN = /the port is in use/;

/**
 * Starts an instance on free ports. A port found free may be taken by another process before the instance
 * binds it (freePort closes its probe first): then the instance is started again on other ports.
 */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnFreePorts(env);
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !(error instanceof Error) || !PORT_TAKEN.test(error.message)) throw error;
    }
  }
}

async function startOnFreePorts(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: String(metricsPort) },
    // The request log (stdout) is not kept; stderr is read until the instance listens, then drained.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exit = once(child, 'exit');
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      if (output.length < 100_000) output += chunk.toString('utf8');
      const ready = READY.exec(output);
      if (ready) resolve(ready[1]!);
    });
    void exit.then(([code]) => reject(new Error(`loadfeed-server start exited with ${String(code)} before listening:\n${output}`)));
  });
  return {
    port,
    baseUrl,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    cpuMs: () => cpuMsOf(child.pid),
    stop: () => stopChild(child, 'SIGTERM', 15_000),
  };
}
