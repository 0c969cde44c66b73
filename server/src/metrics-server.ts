// The metrics listener: `GET /metrics` in Prometheus's text format on a port of its own (METRICS_PORT)
// and an address of its own (METRICS_HOST, loopback by default), apart from the API's, so that an
// operator shows it to Prometheus and not to customers: an instance whose API listens on every interface
// behind a load balancer keeps its metrics on loopback unless told otherwise. Plain node:http: it needs no
// routing, no keys and none of the API's error bodies.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

export interface MetricsListener {
  /** The address it listens on, as the socket reports it (`0.0.0.0` or `::` for every interface). */
  address: string;
  /** The port it listens on (the one asked for, or the free one 0 picked). */
  port: number;
  close(): Promise<void>;
}

export async function listenForMetrics(metrics: Metrics, { host, port }: { host: string; port: number }): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: the metrics are at /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  server.listen(port, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  const { address, port: listening } = server.address() as AddressInfo;
  return {
    address,
    port: listening,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
