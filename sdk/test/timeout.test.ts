// The timeout layer alone, and over the transport: an attempt must bring its whole response in time.
import { describe, expect, it } from 'vitest';
import { AbortError, TimeoutError, systemClock } from '../src/index.js';
import { createSimulatedClock } from '../src/mock/index.js';
import { withTimeout } from '../src/timeout.js';
import { wholeResponses, type AttemptFetch } from '../src/transport.js';
import { startFaultServer } from './fault-server.js';

/** An attempt that never answers, and records the signal it was given. */
function silent() {
  const signals: AbortSignal[] = [];
  const inner: AttemptFetch = (request) =>
    new Promise((_, reject) => {
      signals.push(request.signal);
      request.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });
  return { inner, signals };
}

describe('the timeout layer', () => {
  it('gives a TimeoutError naming the host after timeoutMs on the injected clock, and aborts the attempt', async () => {
    const clock = createSimulatedClock();
    const { inner, signals } = silent();
    const start = clock.now();
    const error = await withTimeout(inner, { clock, timeoutMs: 5_000 })(new Request('http://loads.example.com/api/v1/loads'), { attempt: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe('no response from loads.example.com:80 within 5000 ms');
    expect(clock.now() - start).toBe(5_000);
    expect(signals[0]!.aborted).toBe(true);
    expect(clock.sleepers).toBe(0);
  });

  it("passes the caller's abort through to the attempt", async () => {
    const clock = createSimulatedClock({ autoAdvance: false });
    const inner: AttemptFetch = (request, context) =>
      new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(AbortError.from(context.signal!))));
    const controller = new AbortController();
    const pending = withTimeout(inner, { clock, timeoutMs: 5_000 })(new Request('http://x.test/'), { attempt: 1, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(clock.sleepers).toBe(0);
  });

  it('covers the body too: headers that arrive and a body that stalls are a timeout, not a hang', async () => {
    const server = await startFaultServer(['headers-then-silence']);
    const attempt = withTimeout(wholeResponses((request) => fetch(request)), { clock: systemClock, timeoutMs: 300 });
    await expect(attempt(new Request(`${server.baseUrl}/api/v1/loads`), { attempt: 1 })).rejects.toBeInstanceOf(TimeoutError);
  });
});
