// A hostile body against the size cap: a loopback server streams 10 GB (chunked, no Content-Length) and
// the client must refuse it after maxResponseBytes. Its cost is measured against a baseline in the same
// run: reading a body of exactly the cap's size, which the client accepts. Peak memory in use (heap and
// external: the body's bytes live outside the heap) and the bytes the server got out are sampled while each runs.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponseTooLargeError, createClient } from '@loadfeed/sdk';
import { MOCK_API_KEY } from '@loadfeed/sdk/mock';

export interface HostileResult {
  capBytes: number;
  /** What the server wrote before the client hung up, for the 10 GB body. */
  hostileBytesSent: number;
  hostilePeakMb: number;
  hostileMs: number;
  /** The baseline: one accepted body of the cap's size. */
  baselinePeakMb: number;
  baselineMs: number;
}

const collect = () => (globalThis as { gc?: () => void }).gc?.();

function stream(response: ServerResponse, totalBytes: number, sent: { bytes: number }): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  response.writeHead(200, { 'Content-Type': 'application/json' });
  let closed = false;
  response.on('close', () => void (closed = true));
  // A JSON page padded with spaces up to totalBytes: valid JSON when it ends, so the baseline is accepted.
  const head = Buffer.from('{"data":[],"page":1,"pageSize":100,"totalCount":0,"hasMore":false');
  const tail = Buffer.from('}');
  response.write(head);
  let written = head.length;
  sent.bytes += head.length;
  const pump = () => {
    while (!closed && written < totalBytes - tail.length) {
      const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - tail.length - written));
      written += piece.length;
      sent.bytes += piece.length;
      if (!response.write(piece)) return void response.once('drain', pump);
    }
    if (!closed) response.end(tail);
  };
  pump();
}

async function measure(totalBytes: number, capBytes: number) {
  const sent = { bytes: 0 };
  const server = createServer((request, response) => {
    request.resume();
    stream(response, totalBytes, sent);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  collect();
  const inUse = () => {
    const { heapUsed, external } = process.memoryUsage();
    return heapUsed + external;
  };
  const before = inUse();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, inUse())), 5);
  const start = performance.now();
  const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: MOCK_API_KEY, maxResponseBytes: capBytes });
  let refused = false;
  try {
    await client.listLoads();
  } catch (error) {
    if (!(error instanceof ResponseTooLargeError)) throw error;
    refused = true;
  }
  const ms = performance.now() - start;
  peak = Math.max(peak, inUse());
  clearInterval(sampler);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return { refused, ms, peakMb: (peak - before) / 1024 / 1024, bytesSent: sent.bytes };
}

export async function hostile(capBytes: number): Promise<HostileResult> {
  const baseline = await measure(capBytes, capBytes);
  if (baseline.refused) throw new Error('the baseline body, of exactly the cap, was refused');
  const attack = await measure(10 * 1024 ** 3, capBytes);
  if (!attack.refused) throw new Error('the 10 GB body was accepted');
  return {
    capBytes,
    hostileBytesSent: attack.bytesSent,
    hostilePeakMb: attack.peakMb,
    hostileMs: attack.ms,
    baselinePeakMb: baseline.peakMb,
    baselineMs: baseline.ms,
  };
}
