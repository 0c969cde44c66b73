// A proxy in front of the reference server that breaks one rule: the fault alters the request on its way
// in or the response on its way out. node:http on loopback, nothing else.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
}

export interface Fault {
  /** Changes the request's URL (its query) before it is forwarded; returns an Authorization to send instead. */
  request?(url: URL, authorization: string | undefined): string | undefined | void;
  /** Changes the answer before it is sent back; `requested` is the URL as the client sent it. */
  response?(answer: Answer, url: URL, authorization: string | undefined, requested: URL): Answer;
}

export interface FaultProxy {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Headers the proxy sets itself, since it re-encodes the body. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding']);

async function relay(upstream: string, fault: Fault, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const url = new URL(incoming.url ?? '/', upstream);
  const requested = new URL(url);
  const authorization = incoming.headers.authorization;
  const forwarded = fault.request?.(url, authorization) ?? authorization;
  const response = await fetch(url, {
    method: incoming.method ?? 'GET',
    headers: { accept: 'application/json', ...(forwarded === undefined ? {} : { authorization: forwarded }) },
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) headers[name] = value;
  });
  const answer = fault.response ? fault.response({ status: response.status, headers, body }, url, authorization, requested) : { status: response.status, headers, body };
  const payload = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  outgoing.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(payload) });
  outgoing.end(payload);
}

export async function startFaultProxy(upstream: string, fault: Fault = {}): Promise<FaultProxy> {
  const server = createServer((incoming, outgoing) => {
    relay(upstream, fault, incoming, outgoing).catch((error: unknown) => {
      outgoing.writeHead(502, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({ error: `proxy: ${(error as Error).message}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
