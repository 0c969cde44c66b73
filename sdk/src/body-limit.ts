// The response size cap: a body is read chunk by chunk and counted as it streams, so a server that sends
// gigabytes (a misconfigured proxy, a captive portal, a buggy deployment) costs at most the cap in memory
// and never more than the cap in download. A Content-Length above the cap is refused before any of it is read.
import { integerHeaderValue } from '@loadfeed/spec';
import { ResponseTooLargeError } from './errors.js';
import { hostPort } from './host-port.js';

/** A 1,000-row page (the contract's largest) of long rows is about 3 MB: the default leaves ten times that. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

// One decoder serves every body: decode() without `stream` keeps no state between calls. Like
// Response.text(), it drops a byte-order mark and replaces invalid UTF-8.
const decoder = new TextDecoder();

/** The body as text, or a ResponseTooLargeError as soon as it is known to pass `maxBytes` (the rest is not read). */
export async function readBodyWithin(response: Response, maxBytes: number, url: string): Promise<string> {
  const tooLarge = (why: string) =>
    new ResponseTooLargeError(`the response from ${hostPort(url)} is larger than the client's maxResponseBytes (${maxBytes} bytes): ${why}`, maxBytes, {
      status: response.status,
      headers: response.headers,
    });
  const declared = integerHeaderValue(response.headers.get('content-length'));
  if (declared !== undefined && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(`its Content-Length says ${declared}`);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Cancelling the stream closes the connection: nothing more of the body is downloaded.
      await reader.cancel().catch(() => {});
      throw tooLarge(`more than that arrived, and the rest was not read`);
    }
    chunks.push(value);
  }
  return decoder.decode(chunks.length === 1 ? chunks[0] : concatenate(chunks, total));
}

function concatenate(chunks: Uint8Array[], total: number): Uint8Array {
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}
