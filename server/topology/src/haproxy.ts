// HAProxy (Debian's `haproxy`) in front of the server's instances: round robin, each instance checked on
// /readyz every second, so that one that cannot reach its primary leaves rotation and comes back by
// itself. Runs in the foreground (-db) as a child of this process.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, ownedFolder, requireProgram, stopChild, waitForPort } from './processes.js';

export interface HaProxy {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startHaProxy(backends: { port: number }[], { port }: { port?: number } = {}): Promise<HaProxy> {
  requireProgram('haproxy', 'haproxy');
  const folder = await ownedFolder('loadfeed-haproxy-');
  const listenPort = port ?? (await freePort());
  const config = join(folder, 'haproxy.cfg');
  await writeFile(
    config,
    [
      'global',
      '  maxconn 4000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      // A request an instance could not take (its connection refused) goes to another one.
      '  retries 2',
      '  option redispatch',
      'frontend api',
      `  bind 127.0.0.1:${listenPort}`,
      // With no instance in rotation (each /readyz says its primary is down), clients still get SPEC's 500 body.
      '  http-request return status 500 content-type application/json string \'{"error":"Internal server error"}\' hdr X-Request-Id "%[uuid]" if { nbsrv(instances) eq 0 }',
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 1s fall 2 rise 1',
      ...backends.map((backend, index) => `  server instance${index + 1} 127.0.0.1:${backend.port} check`),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  try {
    await Promise.race([
      waitForPort(listenPort, { what: 'HAProxy', timeoutMs: 15_000 }),
      new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`haproxy exited with ${String(code)}: ${output}`)))),
    ]);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    port: listenPort,
    url: `http://127.0.0.1:${listenPort}`,
    stop: async () => {
      await stopChild(child, 'SIGTERM');
      await rm(folder, { recursive: true, force: true });
    },
  };
}
