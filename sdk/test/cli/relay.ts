// A relay on loopback between the CLI and the real server: it passes every request on unchanged and
// tells a test when each response has gone back, so the test can act at a chosen request (kill the
// client, answer a 429 instead).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RelayOptions {
  /** Called after response `n` (1-based) has been written back to the client. */
  afterResponse?(n: number): void;
  /** Answers request `n` (for `url`, its path and query) itself, instead of the server, when this returns a response. */
  answer?(n: number, url: string): { status: number; headers: Record<string, string>; body: string } | undefined;
}

export async function startRelay(target: string, options: RelayOptions = {}) {
  let count = 0;
  const server = createServer((request, response) => {
    const n = (count += 1);
    const own = options.answer?.(n, request.url ?? '');
    if (own) {
      request.resume();
      response.writeHead(own.status, own.headers);
      response.end(own.body, () => options.afterResponse?.(n));
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
    fetch(`${target}${request.url}`, { headers })
      .then(async (upstream) => {
        const body = Buffer.from(await upstream.arrayBuffer());
        const passed: Record<string, string> = {};
        upstream.headers.forEach((value, name) => {
          if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection') passed[name] = value;
        });
        response.writeHead(upstream.status, { ...passed, 'content-length': String(body.length) });
        response.end(body, () => options.afterResponse?.(n));
      })
      .catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
