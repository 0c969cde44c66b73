// The two servers under test run as processes of their own, as they would in production, and are
// stopped after each measurement.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const READY = /listening on (http:\/\/[^\s]+)/;

export interface RunningServer {
  baseUrl: string;
  stop(): Promise<void>;
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
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exit;
    },
  };
}
