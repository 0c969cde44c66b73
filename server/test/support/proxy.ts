// A TCP proxy in front of PostgreSQL that a test can cut and restore, or freeze and thaw: the database
// "goes away" for the server (connections drop, new ones are refused) or stops answering (connections
// stay open, bytes are held, as with a PostgreSQL whose processes are stopped), without touching the
// PostgreSQL other tests share.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CuttableProxy {
  /** The database URL with its host and port replaced by the proxy's. */
  url: string;
  cut(): void;
  restore(): void;
  /** Holds every byte in both directions, on open and new connections, until thaw(). */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startProxy(databaseUrl: string): Promise<CuttableProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const held: (() => void)[] = [];
  let open = true;
  let frozen = false;
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const write of held.splice(0)) write();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
